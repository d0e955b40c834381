// SQL for idempotency_keys (contract §4.1, §7, §8). A record is written only by the verdict's
// own statement (verdict-store.ts), complete with the response bytes; there is no claim that a
// dying process could leave behind. This store reads records and keeps the table small.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';

export const IDEMPOTENCY_TTL_HOURS = 24;

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
