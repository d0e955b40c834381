// Per-process cache of the service's own secrets (stored in Postgres, see service-secret-store),
// and the ring of device-token signing keys (see devices/device-key-ring).
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Vault } from '../vault/vault.js';
import { loadOrCreateSecret } from './service-secret-store.js';
import { createDeviceKeyRing, type DeviceKeyRing } from './device-key-ring.js';

export interface SecretCache {
  get(name: string): Promise<Buffer>;
  deviceKeys: DeviceKeyRing;
}

export function createSecretCache(db: pg.Pool, vault: Vault, logger?: Logger): SecretCache {
  const cache = new Map<string, Promise<Buffer>>();
  return {
    get(name) {
      let pending = cache.get(name);
      if (!pending) {
        pending = loadOrCreateSecret(db, vault, name);
        // A failed load (Postgres down) is retried by the next caller, not cached.
        pending.catch(() => cache.delete(name));
        cache.set(name, pending);
      }
      return pending;
    },
    deviceKeys: createDeviceKeyRing(db, vault, (err) => logger?.warn({ err: err.message }, 'device key refresh failed; old keys kept')),
  };
}
