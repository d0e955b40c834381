// Use cases behind the ops CLI: create a tenant with its four first keys, mint and revoke keys.
import type pg from 'pg';
import { inTransaction } from '../db/queryable.js';
import { newId } from '../db/new-id.js';
import { AppError } from '../errors.js';
import { generateKey, hashKey, keyHint, parseKey, type KeyKind, type Mode } from './api-key.js';
import { insertKey, insertTenant, revokeKey, tenantExists } from './key-store.js';

export interface TenantKeys {
  sk_live: string;
  sk_test: string;
  pk_live: string;
  pk_test: string;
}

async function mintKey(db: pg.PoolClient | pg.Pool, tenantId: string, kind: KeyKind, mode: Mode): Promise<string> {
  const key = generateKey(kind, mode);
  await insertKey(db, { hash: hashKey(key), tenantId, mode, kind, hint: keyHint(key) });
  return key;
}

export async function createTenant(db: pg.Pool, name: string): Promise<{ tenantId: string; keys: TenantKeys }> {
  if (!name.trim()) throw AppError.invalid([{ path: 'name', message: 'must not be empty' }]);
  const tenantId = newId('ten');
  const keys = await inTransaction(db, async (tx) => {
    await insertTenant(tx, tenantId, name);
    return {
      sk_live: await mintKey(tx, tenantId, 'secret', 'live'),
      sk_test: await mintKey(tx, tenantId, 'secret', 'test'),
      pk_live: await mintKey(tx, tenantId, 'publishable', 'live'),
      pk_test: await mintKey(tx, tenantId, 'publishable', 'test'),
    };
  });
  return { tenantId, keys };
}

export async function createKey(db: pg.Pool, tenantId: string, kind: KeyKind, mode: Mode): Promise<string> {
  if (!(await tenantExists(db, tenantId))) throw new AppError('not_found', `No tenant ${tenantId}.`);
  return mintKey(db, tenantId, kind, mode);
}

export async function revokeApiKey(db: pg.Pool, key: string): Promise<void> {
  if (!parseKey(key)) throw AppError.invalid([{ path: 'key', message: 'is not a Doorman API key' }]);
  if (!(await revokeKey(db, hashKey(key)))) throw new AppError('not_found', 'No such API key.');
}
