// Use case: `doorman device rotate-key`. A new current signing key; the previous one keeps
// verifying for DEVICE_TOKEN_TTL_SECONDS (the longest lifetime of a token it signed), then stops.
import { inTransaction } from '../db/queryable.js';
import type { DeviceDeps } from './issue-device-token.js';
import { rotateSigningKey } from './device-key-store.js';
import { DEVICE_KEYS_CHANNEL } from './watch-device-keys.js';

export async function rotateDeviceKey(deps: Pick<DeviceDeps, 'db' | 'clock' | 'config' | 'vault'>): Promise<{ kid: string }> {
  const retiresAt = new Date(deps.clock.now().getTime() + deps.config.deviceTokenTtlSeconds * 1000);
  const kid = await inTransaction(deps.db, async (tx) => {
    const created = await rotateSigningKey(tx, deps.vault, retiresAt);
    // Delivered at commit, so no instance reloads before the new key is visible.
    await tx.query('SELECT pg_notify($1, $2)', [DEVICE_KEYS_CHANNEL, created]);
    return created;
  });
  return { kid };
}
