// Seeds many pending reviews for one tenant straight into Postgres (one statement), for tests
// and benchmarks of the queue at scale: 10,000 verdicts through the API would take minutes.
import type { Queryable } from '../../src/db/queryable.js';

export async function seedPendingReviews(db: Queryable, tenantId: string, count: number): Promise<void> {
  await db.query(
    `WITH ev AS (
       INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version, created_at, external_user_id, email, request, signals)
       SELECT $1, 'test', 'evt_seed' || lpad(g::text, 7, '0'), 'signup', 'review', '[{"code":"proxy_ip"},{"code":"identity_cluster","detail":{"linked_accounts":3}}]',
              '2026-11-22.1', now() - make_interval(secs => g * 7), 'user_' || g, 'user' || g || '@shop-mail.com',
              jsonb_build_object('event_type', 'signup', 'ip', '198.51.100.7'), '{}'
         FROM generate_series(1, $2::int) g
       RETURNING id, created_at)
     INSERT INTO reviews (tenant_id, mode, event_id, created_at) SELECT $1, 'test', id, created_at FROM ev`,
    [tenantId, count],
  );
  await db.query('ANALYZE events');
  await db.query('ANALYZE reviews');
}
