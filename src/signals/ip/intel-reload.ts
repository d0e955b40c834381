// Reloading ip intelligence and the fetched feeds without a restart, fleet-wide: a change to the
// fetched feeds (migration 0025's trigger) and `doorman intel reload` send a Postgres NOTIFY that
// every serving instance LISTENs for; SIGHUP reloads one process. A listener reloads each time
// its LISTEN takes hold, the first time too: an announcement sent while nothing listened is not
// delivered again.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { listen, notify } from '../../db/listen.js';
import type { Queryable } from '../../db/queryable.js';
import { installSighupReload, type IpIntel } from './ip-intel.js';

export const INTEL_RELOAD_CHANNEL = 'doorman_intel_reload';

export function watchIntelReloads(deps: {
  config: Pick<Config, 'databaseDirectUrl' | 'memoryStalenessMs'>;
  ipIntel: IpIntel;
  // What else reloads with it (the fetched feeds' domain lists).
  intelFeeds?: { reload(): Promise<void> };
  logger: Logger;
}): { close(): Promise<void> } {
  const reload = () => {
    void deps.ipIntel
      .reload()
      .catch((err: Error) => deps.logger.error({ err: err.message }, 'ip intelligence reload failed; old data kept'));
    void deps.intelFeeds
      ?.reload()
      .catch((err: Error) => deps.logger.error({ err: err.message }, 'intel feeds reload failed; old data kept'));
  };
  const uninstall = installSighupReload({ reload: async () => reload() });
  const listener = listen(deps, INTEL_RELOAD_CHANNEL, reload, {
    // Each time, the first included: a change announced after warming loaded the data and before
    // this LISTEN took hold (a feed update while the instance starts, or while a loaded machine
    // makes the connection slow) would otherwise wait for the next announcement, an hour or more.
    onListening: reload,
  });
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
