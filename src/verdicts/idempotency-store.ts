// SQL for idempotency_keys. A request with an Idempotency-Key first claims the key (a 'pending'
// row); the verdict's write marks it 'done' with the exact response bytes; a failure releases it.
import type { Queryable, Scope } from '../db/queryable.js';

export const IDEMPOTENCY_TTL_HOURS = 24;

export type ClaimOutcome =
  | { state: 'claimed' }
  | { state: 'pending' }
  | { state: 'conflict' }
  | { state: 'done'; response: string }
  // The row was committed by a concurrent request after this statement's snapshot: ask again.
  | { state: 'retry' };

export async function claimKey(db: Queryable, scope: Scope, key: string, bodySha256: Buffer, now: Date): Promise<ClaimOutcome> {
  const { rows } = await db.query<{ outcome: string; body_sha256: Buffer | null; response: string | null }>(
    `WITH claimed AS (
       INSERT INTO idempotency_keys (tenant_id, mode, key, body_sha256, state, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'pending', $5, $5::timestamptz + make_interval(hours => $6))
       ON CONFLICT (tenant_id, mode, key) DO UPDATE
         SET body_sha256 = EXCLUDED.body_sha256, state = 'pending', event_id = NULL, response = NULL,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
       RETURNING 1)
     SELECT 'claimed' AS outcome, NULL::bytea AS body_sha256, NULL AS response FROM claimed
     UNION ALL
     SELECT state, body_sha256, response FROM idempotency_keys
      WHERE tenant_id = $1 AND mode = $2 AND key = $3 AND NOT EXISTS (SELECT 1 FROM claimed)`,
    [scope.tenantId, scope.mode, key, bodySha256, now, IDEMPOTENCY_TTL_HOURS],
  );
  const row = rows[0];
  if (!row) return { state: 'retry' };
  if (row.outcome === 'claimed') return { state: 'claimed' };
  if (!row.body_sha256 || !row.body_sha256.equals(bodySha256)) return { state: 'conflict' };
  return row.outcome === 'done' && row.response !== null ? { state: 'done', response: row.response } : { state: 'pending' };
}

export async function releaseKey(db: Queryable, scope: Scope, key: string): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE tenant_id = $1 AND mode = $2 AND key = $3 AND state = 'pending'`, [
    scope.tenantId,
    scope.mode,
    key,
  ]);
}

// Housekeeping: expired records are ignored by claimKey already; this keeps the table small.
export async function deleteExpiredKeys(db: Queryable, now: Date, batch = 10_000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
    [now, batch],
  );
  return rowCount ?? 0;
}
