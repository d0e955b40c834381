// SQL for the console's overview, a read model over events and webhook deliveries of one tenant
// and mode: verdicts per hour by outcome, the most frequent reason codes, and delivery health.
// Each query is a range scan of the events_newest / webhook_deliveries_newest index.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';

export async function verdictsPerHour(db: Queryable, scope: Scope, since: Date): Promise<{ hour: string; allow: number; review: number; block: number }[]> {
  const { rows } = await db.query<{ hour: Date; allow: number; review: number; block: number }>(
    `SELECT date_trunc('hour', created_at) AS hour,
            count(*) FILTER (WHERE verdict = 'allow')::int AS allow,
            count(*) FILTER (WHERE verdict = 'review')::int AS review,
            count(*) FILTER (WHERE verdict = 'block')::int AS block
       FROM events WHERE tenant_id = $1 AND mode = $2 AND created_at >= $3
      GROUP BY 1 ORDER BY 1`,
    [scope.tenantId, scope.mode, since],
  );
  return rows.map((r) => ({ hour: r.hour.toISOString(), allow: r.allow, review: r.review, block: r.block }));
}

export async function topReasonCodes(db: Queryable, scope: Scope, since: Date, limit: number): Promise<{ code: string; events: number }[]> {
  const { rows } = await db.query<{ code: string; events: number }>(
    `SELECT r->>'code' AS code, count(*)::int AS events
       FROM events e CROSS JOIN LATERAL jsonb_array_elements(e.reasons) r
      WHERE e.tenant_id = $1 AND e.mode = $2 AND e.created_at >= $3
      GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $4`,
    [scope.tenantId, scope.mode, since, limit],
  );
  return rows;
}

export async function deliveryCounts(db: Queryable, scope: Scope, since: Date): Promise<{ pending: number; delivered: number; failed: number; retrying: number }> {
  const { rows } = await db.query<{ pending: number; delivered: number; failed: number; retrying: number }>(
    `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
            count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
            count(*) FILTER (WHERE status = 'failed')::int AS failed,
            count(*) FILTER (WHERE status = 'pending' AND attempts > 0)::int AS retrying
       FROM webhook_deliveries WHERE tenant_id = $1 AND mode = $2 AND created_at >= $3`,
    [scope.tenantId, scope.mode, since],
  );
  return rows[0] ?? { pending: 0, delivered: 0, failed: 0, retrying: 0 };
}
