// What a memory of Postgres rows kept current by announcements shares (CONVENTIONS.md departure
// 15; src/tenants/key-directory.ts, src/lists/list-directory.ts): it is trusted only while its
// LISTEN connection proves itself current (a heartbeat younger than MEMORY_STALENESS_MS:
// db/listen.ts) and it has loaded since it last (re)connected; a connection lost or silent makes
// it untrusted at once; warm-up can wait for its first load. The rows themselves, and how an
// announcement changes them, are the owner's.
// Each connection made or lost starts a generation. A read belongs to the generation it began
// in: only a load of the current generation may make the memory trusted, and an owner stores a
// row it read only while its generation is current, so a read that began before a lost
// connection (and may predate changes announced to nobody) never lands after the reconnect.
// Loads run one at a time; one asked for meanwhile, or one that ended in an older generation,
// runs again after it.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { listen, type Listener } from './listen.js';

export interface AnnouncedMemory {
  // The generation now; a read notes it when it begins.
  generation(): number;
  trusted(): boolean;
  // The owner's load of `generation` finished: trusted from now on, if that is still the current one.
  markLoaded(generation: number): void;
  // Untrusted until the owner's load (started here) finishes: an announcement asked for it.
  reload(): void;
  whenLoaded(ms: number): Promise<void>;
  watch(
    deps: { config: Pick<Config, 'databaseDirectUrl' | 'memoryStalenessMs'>; logger: Logger },
    onAnnouncement: (payload: string) => void,
  ): { close(): Promise<void> };
}

// A load that failed is tried again this much later, while still listening.
const RETRY_LOAD_MS = 5_000;

// `what` names the rows in logs; `load` reads them all (each (re)connection, and on reload()),
// stores them only while its generation is current, and then calls markLoaded(generation).
export function announcedMemory(channel: string, what: string, load: (generation: number) => Promise<void>): AnnouncedMemory {
  let generation = 0;
  let listening = false;
  let loadedIn = -1;
  let listener: Listener | undefined;
  let loading: Promise<void> | undefined;
  let again = false;
  let retry: NodeJS.Timeout | undefined;
  let firstLoad: Promise<void> | undefined;
  let markFirst = (): void => undefined;
  let failed = (_err: Error): void => undefined;

  const run = (): void => {
    if (loading) {
      again = true;
      return;
    }
    clearTimeout(retry);
    loading = (async () => {
      do {
        again = false;
        if (!listening) return;
        const started = generation;
        try {
          await load(started);
        } catch (err) {
          failed(err as Error);
          if (!again && started === generation) retry = setTimeout(run, RETRY_LOAD_MS).unref();
        }
        // Read under a connection since lost: worthless now; the current one loads again.
        if (started !== generation) again = true;
      } while (again);
    })().finally(() => {
      loading = undefined;
    });
  };
  const nextGeneration = (isListening: boolean) => {
    generation += 1;
    listening = isListening;
  };

  return {
    generation: () => generation,
    trusted: () => listening && loadedIn === generation && listener !== undefined && listener.proven(),
    markLoaded(of) {
      if (!listening || of !== generation) return;
      loadedIn = of;
      markFirst();
    },
    reload() {
      loadedIn = -1;
      run();
    },
    async whenLoaded(ms) {
      if (!firstLoad) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        firstLoad,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, ms);
        }),
      ]);
      clearTimeout(timer);
    },
    watch(deps, onAnnouncement) {
      firstLoad = new Promise<void>((resolve) => {
        markFirst = resolve;
      });
      failed = (err) => deps.logger.error({ err: err.message }, `${what} not loaded; each lookup reads Postgres meanwhile`);
      const own = listen(deps, channel, onAnnouncement, {
        onListening: () => {
          nextGeneration(true);
          run();
        },
        onLost: () => nextGeneration(false),
      });
      listener = own;
      return {
        async close() {
          nextGeneration(false);
          clearTimeout(retry);
          if (listener === own) listener = undefined;
          await own.close();
        },
      };
    },
  };
}
