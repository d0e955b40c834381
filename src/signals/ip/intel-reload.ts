// Reloading ip intelligence without a restart, fleet-wide: `doorman intel reload` sends a
// Postgres NOTIFY that every serving instance LISTENs for; SIGHUP reloads one process.
import type { Deps } from '../../deps.js';
import { listen, notify } from '../../db/listen.js';
import { installSighupReload } from './ip-intel.js';

export const INTEL_RELOAD_CHANNEL = 'doorman_intel_reload';

export function watchIntelReloads(deps: Pick<Deps, 'config' | 'ipIntel' | 'logger'>): { close(): Promise<void> } {
  const reload = () =>
    void deps.ipIntel.reload().catch((err: Error) => deps.logger.error({ err: err.message }, 'ip intelligence reload failed; old data kept'));
  const uninstall = installSighupReload(deps.ipIntel);
  const listener = listen(deps.config.databaseDirectUrl, INTEL_RELOAD_CHANNEL, reload, deps.logger);
  return {
    async close() {
      uninstall();
      await listener.close();
    },
  };
}

export async function requestIntelReload(deps: Pick<Deps, 'db'>): Promise<void> {
  await notify(deps.db, INTEL_RELOAD_CHANNEL);
}
