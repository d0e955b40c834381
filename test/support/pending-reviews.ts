// Seeds many pending reviews for one tenant straight into Postgres, for tests and benchmarks of
// the queue at scale: 10,000 verdicts through the API would take minutes. In batches of 1,000,
// each its own statement, so that each stays well inside the query timeout on a slow machine.
// Times are whole milliseconds, as the service writes them (its clock is a JS Date; cursors
// carry milliseconds).
import type { Queryable } from '../../src/db/queryable.js';
import { noteGraphScope } from './graph-scopes.js';

const BATCH = 1000;

export async function seedPendingReviews(db: Queryable, tenantId: string, count: number): Promise<void> {
  // Past the verdict's write: the graph never hears of them (the suite's graph check leaves it out).
  await noteGraphScope(db, tenantId, { drift: 'pending reviews seeded straight into Postgres (test/support/pending-reviews.ts)' });
  for (let from = 1; from <= count; from += BATCH) await seedBatch(db, tenantId, from, Math.min(count, from + BATCH - 1));
  await db.query('ANALYZE events');
  await db.query('ANALYZE reviews');
}

async function seedBatch(db: Queryable, tenantId: string, from: number, to: number): Promise<void> {
  await db.query(
    `WITH ev AS (
       INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version, created_at, external_user_id, email, request, signals)
       SELECT $1, 'test', 'evt_seed' || lpad(g::text, 7, '0'), 'signup', 'review', '[{"code":"proxy_ip"},{"code":"identity_cluster","detail":{"linked_accounts":3}}]',
              '2026-11-22.1', date_trunc('milliseconds', now()) - make_interval(secs => g * 7), 'user_' || g, 'user' || g || '@shop-mail.com',
              jsonb_build_object('event_type', 'signup', 'ip', '198.51.100.7'), '{}'
         FROM generate_series($2::int, $3::int) g
       RETURNING id, created_at)
     INSERT INTO reviews (tenant_id, mode, event_id, created_at) SELECT $1, 'test', id, created_at FROM ev`,
    [tenantId, from, to],
  );
}
