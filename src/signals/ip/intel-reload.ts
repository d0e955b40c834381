// Reloading ip intelligence and the fetched feeds without a restart, fleet-wide: a change to the
// fetched feeds (migration 0025's trigger) and `doorman intel reload` send a Postgres NOTIFY that
// every serving instance LISTENs for; SIGHUP reloads one process. A listener that reconnects
// reloads too: an announcement sent while it was away is not delivered again.
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
  let listened = false;
  const listener = listen(deps, INTEL_RELOAD_CHANNEL, reload, {
    // The first time, warming has just loaded everything; after a reconnect, catch up.
    onListening: () => {
      if (listened) reload();
      listened = true;
    },
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
