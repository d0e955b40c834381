// Per-process cache of the service's own secrets (stored in Postgres, see service-secret-store).
import type pg from 'pg';
import { loadOrCreateSecret } from './devices/service-secret-store.js';

export interface SecretCache {
  get(name: string): Promise<Buffer>;
}

export function createSecretCache(db: pg.Pool): SecretCache {
  const cache = new Map<string, Promise<Buffer>>();
  return {
    get(name) {
      let pending = cache.get(name);
      if (!pending) {
        pending = loadOrCreateSecret(db, name);
        // A failed load (Postgres down) is retried by the next caller, not cached.
        pending.catch(() => cache.delete(name));
        cache.set(name, pending);
      }
      return pending;
    },
  };
}
