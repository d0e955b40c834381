// SQL for idempotency_keys (contract §4.1, §7, §8). A record is written only as part of the
// verdict's own statement (verdict-store.ts composes idempotencyRecordCte), complete with the
// response bytes; there is no claim that a dying process could leave behind. This store also
// reads records and keeps the table small.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';

export const IDEMPOTENCY_TTL_HOURS = 24;

// The record as a data-modifying CTE of the verdict's one statement (CONVENTIONS.md departure 2):
// written when the key is given (and `when`, an SQL condition, holds), new or taking over an
// expired record; returns a row if written. The caller names its parameters.
export function idempotencyRecordCte(p: {
  tenantId: string;
  mode: string;
  key: string;
  bodySha256: string;
  eventId: string;
  response: string;
  createdAt: string;
  ttlHours: string;
  when?: string;
}): string {
  return `INSERT INTO idempotency_keys AS k (tenant_id, mode, key, body_sha256, event_id, response, created_at, expires_at)
  SELECT ${p.tenantId}, ${p.mode}, ${p.key}, ${p.bodySha256}, ${p.eventId}, ${p.response}, ${p.createdAt}, ${p.createdAt}::timestamptz + make_interval(hours => ${p.ttlHours})
   WHERE ${p.key}::text IS NOT NULL${p.when ? ` AND ${p.when}` : ''}
  ON CONFLICT (tenant_id, mode, key) DO UPDATE
    SET body_sha256 = EXCLUDED.body_sha256, event_id = EXCLUDED.event_id, response = EXCLUDED.response,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
    WHERE k.expires_at <= EXCLUDED.created_at
  RETURNING 1`;
}

export interface StoredAnswer {
  bodySha256: Buffer;
  response: string;
}

// The unexpired record for this key, if any.
export async function findAnswer(db: Queryable, scope: Scope, key: string, now: Date): Promise<StoredAnswer | undefined> {
  const { rows } = await db.query<{ body_sha256: Buffer; response: string }>({
    name: 'find-idempotency-answer',
    text: `SELECT body_sha256, response FROM idempotency_keys
      WHERE tenant_id = $1 AND mode = $2 AND key = $3 AND expires_at > $4`,
    values: [scope.tenantId, scope.mode, key, now],
  });
  const row = rows[0];
  return row && { bodySha256: row.body_sha256, response: row.response };
}

// Housekeeping: expired records are ignored already; this keeps the table small.
export async function deleteExpiredKeys(db: Queryable, now: Date, batch = 10_000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
    [now, batch],
  );
  return rowCount ?? 0;
}
