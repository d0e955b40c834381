// SQL for device_signing_keys: the keys that sign device tokens, each named by its kid.
// Not tenant-scoped: the keys belong to the service; tokens carry tenant and mode themselves.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/queryable.js';
import { newId } from '../db/new-id.js';

export interface StoredSigningKey {
  kid: string;
  secret: Buffer;
  // null for the current key; otherwise the moment it stops verifying.
  retiresAt: Date | null;
}

const newKey = () => ({ kid: newId('dk'), secret: randomBytes(32) });

// Every key that still verifies somewhere (a day of slack for instances with a skewed clock).
export async function loadSigningKeys(db: Queryable): Promise<StoredSigningKey[]> {
  const { rows } = await db.query<{ kid: string; secret: Buffer; retires_at: Date | null }>(
    `SELECT kid, secret, retires_at FROM device_signing_keys
      WHERE retires_at IS NULL OR retires_at > now() - interval '1 day'`,
  );
  return rows.map((r) => ({ kid: r.kid, secret: r.secret, retiresAt: r.retires_at }));
}

// The first key, made by whichever instance needs one first; the unique index on the current
// key makes a racing second insert a no-op.
export async function createFirstSigningKey(db: Queryable): Promise<void> {
  const { kid, secret } = newKey();
  await db.query(
    `INSERT INTO device_signing_keys (kid, secret) SELECT $1, $2
      WHERE NOT EXISTS (SELECT 1 FROM device_signing_keys WHERE retires_at IS NULL)
     ON CONFLICT DO NOTHING`,
    [kid, secret],
  );
}

// Retires the current key at `retiresAt` and makes a new current one; run inside a transaction.
// Keys retired more than a day ago are deleted: no token they signed can still be alive.
export async function rotateSigningKey(tx: Queryable, retiresAt: Date): Promise<string> {
  const { kid, secret } = newKey();
  await tx.query('UPDATE device_signing_keys SET retires_at = $1 WHERE retires_at IS NULL', [retiresAt]);
  await tx.query('INSERT INTO device_signing_keys (kid, secret) VALUES ($1, $2)', [kid, secret]);
  await tx.query(`DELETE FROM device_signing_keys WHERE retires_at < now() - interval '1 day'`);
  return kid;
}
