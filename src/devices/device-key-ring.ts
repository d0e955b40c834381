// The device-token signing keys held in memory, so verifying a token on the verdict path costs
// no database round trip. A rotation reaches every instance through a Postgres NOTIFY
// (watchDeviceKeys); a ring older than a minute refreshes itself in the background (a missed
// NOTIFY heals); an unknown kid may trigger at most one reload per five seconds, so forged kids
// cannot turn into a query per request.
import { webcrypto } from 'node:crypto';
import type { Queryable } from '../db/queryable.js';
import type { Vault } from '../vault/vault.js';
import { createFirstSigningKey, loadSigningKeys } from './device-key-store.js';

export interface SigningKey {
  kid: string;
  // Imported once: jose verifies fastest with a ready CryptoKey (measured: about half the cost
  // of handing it raw bytes or a KeyObject on every call).
  key: webcrypto.CryptoKey;
  retiresAt: Date | null;
}

export interface DeviceKeyRing {
  // The current key, for signing; made on first use when the service has none yet.
  signingKey(): Promise<SigningKey>;
  // The key a token names, if it still verifies at `now`.
  verificationKey(kid: string, now: Date): Promise<SigningKey | undefined>;
  // Reads the keys again (after a rotation); concurrent callers share one query.
  reload(): Promise<void>;
  // How many times the keys were read from Postgres (for tests and diagnostics).
  loads(): number;
}

const STALE_AFTER_MS = 60_000;
const UNKNOWN_KID_RELOAD_MS = 5_000;

export function createDeviceKeyRing(db: Queryable, vault: Vault, onBackgroundError: (err: Error) => void = () => undefined): DeviceKeyRing {
  let keys = new Map<string, SigningKey>();
  let current: SigningKey | undefined;
  let loadedAt = 0;
  let loadStartedAt = 0;
  let loadCount = 0;
  let inFlight: Promise<void> | undefined;

  const read = async () => {
    loadStartedAt = Date.now();
    loadCount += 1;
    let rows = await loadSigningKeys(db, vault);
    if (!rows.some((r) => r.retiresAt === null)) {
      await createFirstSigningKey(db, vault);
      rows = await loadSigningKeys(db, vault);
    }
    const imported = await Promise.all(
      rows.map(async (r) => ({
        kid: r.kid,
        key: await webcrypto.subtle.importKey('raw', r.secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
        retiresAt: r.retiresAt,
      })),
    );
    const next = new Map(imported.map((k) => [k.kid, k]));
    keys = next;
    current = [...next.values()].find((k) => k.retiresAt === null);
    loadedAt = Date.now();
  };

  const reload = () =>
    (inFlight ??= read().finally(() => {
      inFlight = undefined;
    }));

  // Serve from memory; refresh behind the caller when the ring is older than a minute.
  const ready = async () => {
    if (loadedAt === 0) return reload();
    if (Date.now() - loadedAt > STALE_AFTER_MS && !inFlight) reload().catch(onBackgroundError);
  };

  return {
    async signingKey() {
      await ready();
      if (!current) await reload();
      if (!current) throw new Error('no current device signing key');
      return current;
    },
    async verificationKey(kid, now) {
      await ready();
      let key = keys.get(kid);
      if (!key && Date.now() - loadStartedAt > UNKNOWN_KID_RELOAD_MS) {
        await reload();
        key = keys.get(kid);
      }
      return key && (key.retiresAt === null || key.retiresAt > now) ? key : undefined;
    },
    reload,
    loads: () => loadCount,
  };
}
