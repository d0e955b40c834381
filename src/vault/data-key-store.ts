// SQL for secret_data_keys: the data keys that seal stored secrets, each kept wrapped (sealed)
// under a master key from configuration, and named by that key's id.
import type { Queryable } from '../db/queryable.js';

export interface StoredDataKey {
  id: string;
  wrapped: string;
  masterKid: string;
}

const fromRow = (r: { id: string; wrapped: string; master_kid: string }): StoredDataKey => ({
  id: r.id,
  wrapped: r.wrapped,
  masterKid: r.master_kid,
});

export async function findDataKey(db: Queryable, id: string): Promise<StoredDataKey | undefined> {
  const { rows } = await db.query<{ id: string; wrapped: string; master_kid: string }>(
    'SELECT id, wrapped, master_kid FROM secret_data_keys WHERE id = $1',
    [id],
  );
  return rows[0] && fromRow(rows[0]);
}

export async function currentDataKey(db: Queryable): Promise<StoredDataKey | undefined> {
  const { rows } = await db.query<{ id: string; wrapped: string; master_kid: string }>(
    'SELECT id, wrapped, master_kid FROM secret_data_keys WHERE current',
  );
  return rows[0] && fromRow(rows[0]);
}

// The first data key, made by whichever process seals first; the unique index on the current key
// makes a racing second insert a no-op (the caller reads the winner).
export async function insertFirstDataKey(db: Queryable, key: StoredDataKey): Promise<void> {
  await db.query(
    `INSERT INTO secret_data_keys (id, wrapped, master_kid, current) VALUES ($1, $2, $3, true)
     ON CONFLICT DO NOTHING`,
    [key.id, key.wrapped, key.masterKid],
  );
}

export async function allDataKeys(db: Queryable): Promise<StoredDataKey[]> {
  const { rows } = await db.query<{ id: string; wrapped: string; master_kid: string }>(
    'SELECT id, wrapped, master_kid FROM secret_data_keys ORDER BY created_at, id',
  );
  return rows.map(fromRow);
}

export async function rewrapDataKey(db: Queryable, id: string, wrapped: string, masterKid: string): Promise<void> {
  await db.query('UPDATE secret_data_keys SET wrapped = $2, master_kid = $3 WHERE id = $1', [id, wrapped, masterKid]);
}
