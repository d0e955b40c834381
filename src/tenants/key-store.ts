// SQL for tenants and api_keys.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { KeyKind } from './api-key.js';

export interface KeyRow {
  tenantId: string;
  mode: Scope['mode'];
  kind: KeyKind;
  revoked: boolean;
}

export async function insertTenant(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [id, name]);
}

export async function tenantExists(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM tenants WHERE id = $1', [id]);
  return rowCount === 1;
}

export async function insertKey(
  db: Queryable,
  key: { hash: string; tenantId: string; mode: Scope['mode']; kind: KeyKind; hint: string },
): Promise<void> {
  await db.query('INSERT INTO api_keys (key_hash, tenant_id, mode, kind, hint) VALUES ($1, $2, $3, $4, $5)', [
    key.hash,
    key.tenantId,
    key.mode,
    key.kind,
    key.hint,
  ]);
}

export async function findKey(db: Queryable, hash: string): Promise<KeyRow | undefined> {
  // Named: prepared once per connection (every authenticated request runs it).
  const { rows } = await db.query<{ tenant_id: string; mode: Scope['mode']; kind: KeyKind; revoked: boolean }>({
    name: 'find-key',
    text: 'SELECT tenant_id, mode, kind, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE key_hash = $1',
    values: [hash],
  });
  const row = rows[0];
  return row && { tenantId: row.tenant_id, mode: row.mode, kind: row.kind, revoked: row.revoked };
}

// Every key, by hash (key-directory.ts holds them in memory): a few per tenant.
export async function allKeys(db: Queryable): Promise<Map<string, KeyRow>> {
  const { rows } = await db.query<{ key_hash: string; tenant_id: string; mode: Scope['mode']; kind: KeyKind; revoked: boolean }>(
    'SELECT key_hash, tenant_id, mode, kind, revoked_at IS NOT NULL AS revoked FROM api_keys',
  );
  return new Map(rows.map((r) => [r.key_hash, { tenantId: r.tenant_id, mode: r.mode, kind: r.kind, revoked: r.revoked }]));
}

// Returns whether a key with this hash exists (revoking twice is not an error).
export async function revokeKey(db: Queryable, hash: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE key_hash = $1', [hash]);
  return rowCount === 1;
}
