// Use case: exchange fingerprint components for a signed, short-lived device token.
import type { Scope } from '../scope.js';
import type { Deps } from '../deps.js';
import { deriveDeviceId, signDeviceToken } from './device-token.js';

// The never-rotated key device ids are derived with (a service secret, made on first use).
export const DEVICE_ID_KEY = 'device_id_key';

export interface DeviceTokenResult {
  deviceToken: string;
  expiresAt: Date;
}

export async function issueDeviceToken(
  deps: Pick<Deps, 'secrets' | 'clock' | 'config'>,
  scope: Scope,
  components: Record<string, unknown>,
): Promise<DeviceTokenResult> {
  const [idKey, signing] = await Promise.all([deps.secrets.get(DEVICE_ID_KEY), deps.secrets.deviceKeys.signingKey()]);
  const deviceId = deriveDeviceId(idKey, scope, components);
  const { token, expiresAt } = await signDeviceToken(signing, scope, deviceId, deps.clock.now(), deps.config.deviceTokenTtlSeconds);
  return { deviceToken: token, expiresAt };
}
