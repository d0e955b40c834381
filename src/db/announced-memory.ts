// What a memory of Postgres rows kept current by announcements shares (CONVENTIONS.md departure
// 15; src/tenants/key-directory.ts, src/lists/list-directory.ts): it is trusted only while its
// LISTEN connection proves itself current (a heartbeat younger than MEMORY_STALENESS_MS:
// db/listen.ts) and it has loaded since it last (re)connected; a connection lost or silent makes
// it untrusted at once; warm-up can wait for its first load. The rows themselves, and how an
// announcement changes them, are the owner's.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { listen, type Listener } from './listen.js';

export interface AnnouncedMemory {
  listening(): boolean;
  trusted(): boolean;
  // The owner's load finished while listening: trusted from now on.
  markLoaded(): void;
  // Untrusted until the owner's load (started here) finishes: an announcement asked for it.
  reload(): void;
  whenLoaded(ms: number): Promise<void>;
  watch(deps: { config: Pick<Config, 'databaseDirectUrl' | 'memoryStalenessMs'>; logger: Logger }, onAnnouncement: (payload: string) => void): { close(): Promise<void> };
}

// `what` names the rows in logs; `load` reads them all (each (re)connection, and on reload()).
export function announcedMemory(channel: string, what: string, load: () => Promise<void>): AnnouncedMemory {
  let listening = false;
  let loaded = false;
  let listener: Listener | undefined;
  let firstLoad: Promise<void> | undefined;
  let markFirst = (): void => undefined;
  let failed = (_err: Error): void => undefined;
  const run = () => void load().catch((err: Error) => failed(err));
  return {
    listening: () => listening,
    trusted: () => listening && loaded && listener !== undefined && listener.proven(),
    markLoaded() {
      if (!listening) return;
      loaded = true;
      markFirst();
    },
    reload() {
      loaded = false;
      run();
    },
    async whenLoaded(ms) {
      if (!firstLoad) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([firstLoad, new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); })]);
      clearTimeout(timer);
    },
    watch(deps, onAnnouncement) {
      firstLoad = new Promise<void>((resolve) => { markFirst = resolve; });
      failed = (err) => deps.logger.error({ err: err.message }, `${what} not loaded; each lookup reads Postgres meanwhile`);
      const lost = () => {
        listening = false;
        loaded = false;
      };
      const own = listen(deps, channel, onAnnouncement, {
        onListening: () => {
          listening = true;
          run();
        },
        onLost: lost,
      });
      listener = own;
      return {
        async close() {
          lost();
          if (listener === own) listener = undefined;
          await own.close();
        },
      };
    },
  };
}
