// Use cases behind `doorman migrate` and `doorman secrets rotate-key`: seal every secret still
// stored in the plain (rows written before sealing existed), and re-wrap every data key under the
// current master key, so that older master keys can leave the configuration. Both are idempotent
// and take no lock that stops the service: an instance reads a secret either way while they run.
import type pg from 'pg';
import { inTransaction } from '../db/queryable.js';
import { serviceSecretHome } from '../devices/service-secret-store.js';
import { signingKeyHome } from '../devices/device-key-store.js';
import { webhookSecretHome } from '../webhooks/webhook-store.js';
import { allDataKeys, rewrapDataKey } from '../vault/data-key-store.js';
import { dataKeyAad, encrypt, unwrapDataKey, VaultError, type Vault } from '../vault/vault.js';

// What sealing and re-wrapping need; the composition root (src/deps.ts) passes its Deps.
export interface SealDeps {
  db: pg.Pool;
  vault: Vault;
}

// The plainly stored secrets of each table, and how each row is named and read.
const TABLES = [
  { table: 'webhook_secrets', key: 'id', home: webhookSecretHome, text: true },
  { table: 'device_signing_keys', key: 'kid', home: signingKeyHome, text: false },
  { table: 'service_secrets', key: 'name', home: serviceSecretHome, text: false },
] as const;

export async function sealPlainSecrets(deps: SealDeps): Promise<number> {
  let sealed = 0;
  for (const t of TABLES) {
    const { rows } = await deps.db.query<{ key: string; secret: string | Buffer }>(
      `SELECT ${t.key} AS key, secret FROM ${t.table} WHERE sealed IS NULL`,
    );
    for (const row of rows) {
      const bytes = typeof row.secret === 'string' ? Buffer.from(row.secret, 'utf8') : row.secret;
      const value = await deps.vault.seal(t.home(row.key), bytes);
      const { rowCount } = await deps.db.query(`UPDATE ${t.table} SET sealed = $2, secret = NULL WHERE ${t.key} = $1 AND sealed IS NULL`, [
        row.key,
        value,
      ]);
      sealed += rowCount ?? 0;
    }
  }
  return sealed;
}

// Every data key wrapped under the current master key; returns how many secrets that covers.
export async function rotateMasterKey(deps: SealDeps): Promise<{ dataKeys: number; rewrapped: number; secrets: number }> {
  const [current] = deps.vault.masters;
  if (!current) throw new VaultError('SECRETS_KEY is not set: there is no master key to rotate to');
  await sealPlainSecrets(deps);
  let rewrapped = 0;
  const keys = await allDataKeys(deps.db);
  for (const stored of keys) {
    if (stored.masterKid === current.kid) continue;
    const key = unwrapDataKey(deps.vault.masters, stored);
    await inTransaction(deps.db, (tx) => rewrapDataKey(tx, stored.id, encrypt(current.key, dataKeyAad(stored.id), key), current.kid));
    rewrapped += 1;
  }
  const { rows } = await deps.db.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM webhook_secrets WHERE sealed IS NOT NULL) + (SELECT count(*) FROM device_signing_keys WHERE sealed IS NOT NULL)
            + (SELECT count(*) FROM service_secrets WHERE sealed IS NOT NULL) AS n`,
  );
  return { dataKeys: keys.length, rewrapped, secrets: Number(rows[0]?.n ?? 0) };
}
