// A new signing key reaches every serving instance without a restart: `doorman device
// rotate-key` sends a Postgres NOTIFY (on commit) that each instance LISTENs for, like the ip
// intelligence reload.
import { listen } from '../db/listen.js';
import type { DeviceDeps } from './issue-device-token.js';

export const DEVICE_KEYS_CHANNEL = 'doorman_device_keys';

export function watchDeviceKeys(deps: Pick<DeviceDeps, 'config' | 'secrets' | 'logger'>): { close(): Promise<void> } {
  const reload = () =>
    void deps.secrets.deviceKeys
      .reload()
      .catch((err: Error) => deps.logger.warn({ err: err.message }, 'device key reload failed; old keys kept'));
  // Load now, so the first verdict with a token does not pay for it.
  reload();
  return listen(deps, DEVICE_KEYS_CHANNEL, reload);
}
