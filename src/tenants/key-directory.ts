// API keys answered from memory: every key row, loaded once and kept current by the
// announcements migration 0021's trigger sends on each change to api_keys (a key created,
// revoked or deleted, by whatever means). The memory is trusted only while this process's
// listener proves itself current (a heartbeat younger than MEMORY_STALENESS_MS) and it has loaded
// since it last (re)connected (src/db/announced-memory.ts); otherwise each lookup reads Postgres.
// So a revoked key is refused by every instance once the announcement arrives (on
// commit, typically within milliseconds), and within MEMORY_STALENESS_MS (3 s) when it cannot.
// A hash not in memory is read from Postgres (a key created a moment ago, whose announcement is
// on its way); authenticate.ts remembers the unknown ones, so made-up keys cost no lookup each.
// A read (the load, or such a lookup) stores what it read only if nothing could have changed it
// since it began: no announcement of its hash (or of everything) since, and still the same
// generation, that is the same connection (a change made while disconnected is announced to
// nobody; db/announced-memory.ts).
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Queryable } from '../db/queryable.js';
import { announcedMemory } from '../db/announced-memory.js';
import { allKeys, findKey, type KeyRow } from './key-store.js';

export const KEY_CHANNEL = 'doorman_keys_changed';

export interface KeyDirectory {
  // The key's row, or undefined when no key has this hash.
  find(hash: string): Promise<KeyRow | undefined>;
  // Whether lookups are answered from memory right now.
  trusted(): boolean;
  // Settles once the memory is first trusted after watch() (at once when not watching, and at
  // most after `ms`): warm-up waits for it.
  whenLoaded(ms: number): Promise<void>;
  // Keeps this directory current until closed (serve() starts it).
  watch(deps: { config: Pick<Config, 'databaseDirectUrl' | 'memoryStalenessMs'>; logger: Logger }): { close(): Promise<void> };
}

export function createKeyDirectory(db: Queryable): KeyDirectory {
  const rows = new Map<string, KeyRow>();
  // Each announcement advances the epoch and stamps its hash; a read that began before a change
  // to its hash does not store what it read (it may predate the change). A load forgets the
  // stamps (keeping them would grow without end), so a read that began before it counts as stale.
  let epoch = 0;
  const changedAt = new Map<string, number>();
  let everything = 0;
  let forgotten = 0;
  const staleSince = (hash: string, since: number) => since < forgotten || (changedAt.get(hash) ?? 0) > since || everything > since;

  const memory = announcedMemory(KEY_CHANNEL, 'api keys', async (generation) => {
    const since = epoch;
    const all = await allKeys(db);
    if (generation !== memory.generation() || everything > since) return;
    rows.clear();
    for (const [hash, row] of all) if (!staleSince(hash, since)) rows.set(hash, row);
    changedAt.clear();
    forgotten = epoch;
    memory.markLoaded(generation);
  });

  const announced = (payload: string) => {
    epoch += 1;
    if (payload === '*' || payload === '') {
      everything = epoch;
      rows.clear();
      return memory.reload();
    }
    changedAt.set(payload, epoch);
    rows.delete(payload);
  };

  return {
    trusted: memory.trusted,
    whenLoaded: memory.whenLoaded,
    async find(hash) {
      if (!memory.trusted()) return findKey(db, hash);
      const known = rows.get(hash);
      if (known) return known;
      const since = epoch;
      const generation = memory.generation();
      const row = await findKey(db, hash);
      if (row && memory.trusted() && memory.generation() === generation && !staleSince(hash, since)) rows.set(hash, row);
      return row;
    },
    watch: (deps) => memory.watch(deps, announced),
  };
}
