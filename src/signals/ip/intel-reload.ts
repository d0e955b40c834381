// Reloading ip intelligence without a restart, fleet-wide: `doorman intel reload` sends a
// Postgres NOTIFY that every serving instance LISTENs for; SIGHUP reloads one process.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { listen, notify } from '../../db/listen.js';
import type { Queryable } from '../../db/queryable.js';
import { installSighupReload, type IpIntel } from './ip-intel.js';

export const INTEL_RELOAD_CHANNEL = 'doorman_intel_reload';

export function watchIntelReloads(deps: {
  config: Pick<Config, 'databaseDirectUrl' | 'memoryStalenessMs'>;
  ipIntel: IpIntel;
  logger: Logger;
}): { close(): Promise<void> } {
  const reload = () =>
    void deps.ipIntel
      .reload()
      .catch((err: Error) => deps.logger.error({ err: err.message }, 'ip intelligence reload failed; old data kept'));
  const uninstall = installSighupReload(deps.ipIntel);
  const listener = listen(deps, INTEL_RELOAD_CHANNEL, reload);
  return {
    async close() {
      uninstall();
      await listener.close();
    },
  };
}

export async function requestIntelReload(deps: { db: Queryable }): Promise<void> {
  await notify(deps.db, INTEL_RELOAD_CHANNEL);
}
