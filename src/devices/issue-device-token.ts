// Use case: exchange fingerprint components for a signed, short-lived device token.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Scope } from '../scope.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Vault } from '../vault/vault.js';
import type { SecretCache } from './secret-cache.js';
import { deriveDeviceId, signDeviceToken } from './device-token.js';

// The never-rotated key device ids are derived with (a service secret, made on first use).
export const DEVICE_ID_KEY = 'device_id_key';

// What the device use cases need (issuing tokens, rotating and watching the signing keys); the
// composition root (src/deps.ts) passes its Deps.
export interface DeviceDeps {
  db: pg.Pool;
  secrets: SecretCache;
  clock: Clock;
  config: Pick<Config, 'deviceTokenTtlSeconds' | 'databaseDirectUrl' | 'memoryStalenessMs'>;
  logger: Logger;
  vault: Vault;
}

export interface DeviceTokenResult {
  deviceToken: string;
  expiresAt: Date;
}

export async function issueDeviceToken(
  deps: Pick<DeviceDeps, 'secrets' | 'clock' | 'config'>,
  scope: Scope,
  components: Record<string, unknown>,
): Promise<DeviceTokenResult> {
  const [idKey, signing] = await Promise.all([deps.secrets.get(DEVICE_ID_KEY), deps.secrets.deviceKeys.signingKey()]);
  const deviceId = deriveDeviceId(idKey, scope, components);
  const { token, expiresAt } = await signDeviceToken(signing, scope, deviceId, deps.clock.now(), deps.config.deviceTokenTtlSeconds);
  return { deviceToken: token, expiresAt };
}
