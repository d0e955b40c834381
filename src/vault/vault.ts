// The vault: envelope encryption of the secrets the service stores (webhook signing secrets,
// device-token signing keys, its own service secrets). Each is sealed with AES-256-GCM under a
// data key; data keys are stored wrapped, also by AES-256-GCM, under the master key of the
// configuration (SECRETS_KEY), never in the database. A sealed value is bound to where it lives
// (its table and row, as additional authenticated data), so it cannot be moved to another row.
// Rotating the master key re-wraps the data keys only (lifecycle/seal-stored-secrets.ts); while it
// runs, SECRETS_PREVIOUS_KEYS still opens what the old key wrapped, so no instance stops.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/queryable.js';
import { newId } from '../db/new-id.js';
import { currentDataKey, findDataKey, insertFirstDataKey, type StoredDataKey } from './data-key-store.js';

export interface MasterKey {
  kid: string;
  key: Buffer;
}

export interface Vault {
  // `where` names the value's home, e.g. `webhook_secrets/whs_…`.
  seal(where: string, plaintext: Buffer): Promise<string>;
  open(where: string, sealed: string): Promise<Buffer>;
  // The master keys this process holds, the sealing one first (none when SECRETS_KEY is unset).
  readonly masters: readonly MasterKey[];
}

export class VaultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VaultError';
  }
}

const VERSION = 'v1';

// A master key's id: the first 16 hex digits of its SHA-256 (it names the key, never reveals it).
export function masterKeyOf(key: Buffer): MasterKey {
  return { kid: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

export function encrypt(key: Buffer, aad: string, plaintext: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString('base64url')}.${body.toString('base64url')}`;
}

export function decrypt(key: Buffer, aad: string, sealed: string): Buffer {
  const [ivText, bodyText] = sealed.split('.');
  if (!ivText || !bodyText) throw new VaultError('a sealed value is malformed');
  const iv = Buffer.from(ivText, 'base64url');
  const body = Buffer.from(bodyText, 'base64url');
  if (iv.length !== 12 || body.length < 16) throw new VaultError('a sealed value is malformed');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - 16));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
  } catch {
    throw new VaultError(`a sealed value does not open (${aad}): tampered with, moved, or sealed under another key`);
  }
}

export const dataKeyAad = (id: string) => `secret_data_keys/${id}`;

// The master keys this process holds: the current one (seals) first, then the previous ones.
export function unwrapDataKey(masters: readonly MasterKey[], stored: StoredDataKey): Buffer {
  const master = masters.find((m) => m.kid === stored.masterKid);
  if (!master) {
    throw new VaultError(
      `data key ${stored.id} is wrapped under master key ${stored.masterKid}, which neither SECRETS_KEY nor SECRETS_PREVIOUS_KEYS holds`,
    );
  }
  return decrypt(master.key, dataKeyAad(stored.id), stored.wrapped);
}

const NO_KEY = 'SECRETS_KEY is not set: stored secrets cannot be sealed or opened (see the README, Configuration)';

export function createVault(db: Queryable, masters: readonly MasterKey[]): Vault {
  const master = masters[0];
  if (!master) {
    const refuse = async (): Promise<never> => {
      throw new VaultError(NO_KEY);
    };
    return { masters, seal: refuse, open: refuse };
  }
  const dataKeys = new Map<string, Promise<Buffer>>();
  let current: Promise<{ id: string; key: Buffer }> | undefined;

  const dataKey = (id: string): Promise<Buffer> => {
    let pending = dataKeys.get(id);
    if (!pending) {
      pending = (async () => {
        const stored = await findDataKey(db, id);
        if (!stored) throw new VaultError(`data key ${id} is not in the database`);
        return unwrapDataKey(masters, stored);
      })();
      // A failed load (Postgres down) is retried by the next caller, not remembered.
      pending.catch(() => dataKeys.delete(id));
      dataKeys.set(id, pending);
    }
    return pending;
  };

  const currentKey = () => {
    current ??= (async () => {
      let stored = await currentDataKey(db);
      if (!stored) {
        const id = newId('dek');
        await insertFirstDataKey(db, { id, wrapped: encrypt(master.key, dataKeyAad(id), randomBytes(32)), masterKid: master.kid });
        stored = await currentDataKey(db);
      }
      if (!stored) throw new VaultError('no current data key after creating one');
      return { id: stored.id, key: unwrapDataKey(masters, stored) };
    })();
    current.catch(() => {
      current = undefined;
    });
    return current;
  };

  return {
    masters,
    async seal(where, plaintext) {
      const { id, key } = await currentKey();
      return `${VERSION}.${id}.${encrypt(key, where, plaintext)}`;
    },
    async open(where, sealed) {
      const [version, id, ...rest] = sealed.split('.');
      if (version !== VERSION || !id || rest.length !== 2) throw new VaultError(`a sealed value is malformed (${where})`);
      return decrypt(await dataKey(id), where, rest.join('.'));
    },
  };
}
