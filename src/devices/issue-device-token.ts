// Use case: exchange fingerprint components for a signed, short-lived device token.
import type { Scope } from '../db/queryable.js';
import type { Deps } from '../deps.js';
import { deriveDeviceId, signDeviceToken } from './device-token.js';

export const DEVICE_SECRET = 'device_token_signing_key';

export interface DeviceTokenResult {
  deviceToken: string;
  expiresAt: Date;
}

export async function issueDeviceToken(
  deps: Pick<Deps, 'secrets' | 'clock' | 'config'>,
  scope: Scope,
  components: Record<string, unknown>,
): Promise<DeviceTokenResult> {
  const secret = await deps.secrets.get(DEVICE_SECRET);
  const deviceId = deriveDeviceId(secret, scope, components);
  const { token, expiresAt } = await signDeviceToken(secret, scope, deviceId, deps.clock.now(), deps.config.deviceTokenTtlSeconds);
  return { deviceToken: token, expiresAt };
}
