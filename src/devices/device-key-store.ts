// SQL for device_signing_keys: the keys that sign device tokens, each named by its kid, stored
// sealed by the vault. Not tenant-scoped: the keys belong to the service; tokens carry tenant
// and mode themselves.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/queryable.js';
import { newId } from '../db/new-id.js';
import type { Vault } from '../vault/vault.js';

export const signingKeyHome = (kid: string) => `device_signing_keys/${kid}`;

export interface StoredSigningKey {
  kid: string;
  secret: Buffer;
  // null for the current key; otherwise the moment it stops verifying.
  retiresAt: Date | null;
}

async function newKey(vault: Vault): Promise<{ kid: string; sealed: string }> {
  const kid = newId('dk');
  return { kid, sealed: await vault.seal(signingKeyHome(kid), randomBytes(32)) };
}

// Every key that still verifies somewhere (a day of slack for instances with a skewed clock).
export async function loadSigningKeys(db: Queryable, vault: Vault): Promise<StoredSigningKey[]> {
  const { rows } = await db.query<{ kid: string; secret: Buffer | null; sealed: string | null; retires_at: Date | null }>(
    `SELECT kid, secret, sealed, retires_at FROM device_signing_keys
      WHERE retires_at IS NULL OR retires_at > now() - interval '1 day'`,
  );
  return Promise.all(
    rows.map(async (r) => ({
      kid: r.kid,
      // A row from before sealing holds the bytes in `secret` until `doorman migrate` seals it.
      secret: r.sealed ? await vault.open(signingKeyHome(r.kid), r.sealed) : r.secret!,
      retiresAt: r.retires_at,
    })),
  );
}

// The first key, made by whichever instance needs one first; the unique index on the current
// key makes a racing second insert a no-op.
export async function createFirstSigningKey(db: Queryable, vault: Vault): Promise<void> {
  const { kid, sealed } = await newKey(vault);
  await db.query(
    `INSERT INTO device_signing_keys (kid, sealed) SELECT $1, $2
      WHERE NOT EXISTS (SELECT 1 FROM device_signing_keys WHERE retires_at IS NULL)
     ON CONFLICT DO NOTHING`,
    [kid, sealed],
  );
}

// Retires the current key at `retiresAt` and makes a new current one; run inside a transaction.
// Keys retired more than a day ago are deleted: no token they signed can still be alive.
export async function rotateSigningKey(tx: Queryable, vault: Vault, retiresAt: Date): Promise<string> {
  const { kid, sealed } = await newKey(vault);
  await tx.query('UPDATE device_signing_keys SET retires_at = $1 WHERE retires_at IS NULL', [retiresAt]);
  await tx.query('INSERT INTO device_signing_keys (kid, sealed) VALUES ($1, $2)', [kid, sealed]);
  await tx.query(`DELETE FROM device_signing_keys WHERE retires_at < now() - interval '1 day'`);
  return kid;
}
