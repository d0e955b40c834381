// SQL for service_secrets: a named random secret, created on first use by whichever instance
// gets there first; every instance then reads the same bytes. Stored sealed by the vault.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/queryable.js';
import type { Vault } from '../vault/vault.js';

export const serviceSecretHome = (name: string) => `service_secrets/${name}`;

export async function loadOrCreateSecret(db: Queryable, vault: Vault, name: string): Promise<Buffer> {
  await db.query('INSERT INTO service_secrets (name, sealed) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    await vault.seal(serviceSecretHome(name), randomBytes(32)),
  ]);
  const { rows } = await db.query<{ secret: Buffer | null; sealed: string | null }>(
    'SELECT secret, sealed FROM service_secrets WHERE name = $1',
    [name],
  );
  const row = rows[0];
  if (!row) throw new Error(`service secret ${name} missing after insert`);
  // A row from before sealing holds the bytes in `secret` until `doorman migrate` seals it.
  return row.sealed ? vault.open(serviceSecretHome(name), row.sealed) : row.secret!;
}
