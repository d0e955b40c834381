// The tenants' allow and block lists answered from memory: every entry, loaded once and
// kept current by the announcements migration 0021's trigger sends on each change to list_entries
// (`doorman list add|remove`, an erasure, an operator in psql), each naming its entry. The memory
// is trusted only while this process's listener proves itself current (MEMORY_STALENESS_MS) and
// it has loaded since it last (re)connected (src/db/announced-memory.ts); otherwise each verdict
// reads its matches from Postgres. An announcement arriving during a load is applied
// after it, in commit order, so a load never undoes a newer change; a load that ends under a
// later connection than it began in is dropped (announced-memory.ts runs loads one at a time and
// again for the current connection).
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Queryable } from '../db/queryable.js';
import { announcedMemory } from '../db/announced-memory.js';
import type { ListHit } from '../engine/types.js';
import type { Scope } from '../scope.js';
import { allListEntries, matchLists, type ListEntry } from './list-store.js';

export const LIST_CHANNEL = 'doorman_lists_changed';

export interface ListDirectory {
  // The entries matching one of the event's identifiers.
  match(scope: Scope, candidates: { kind: string; value: string }[]): Promise<ListHit[]>;
  // Whether matches are answered from memory right now.
  trusted(): boolean;
  // Settles once the memory is first trusted after watch() (at once when not watching, and at
  // most after `ms`): warm-up waits for it.
  whenLoaded(ms: number): Promise<void>;
  // Keeps this directory current until closed (serve() starts it).
  watch(deps: { config: Pick<Config, 'databaseDirectUrl' | 'memoryStalenessMs'>; logger: Logger }): { close(): Promise<void> };
}

type Change = { op: 'add' | 'remove' } & ListEntry;
type Lists = Map<string, Map<string, Set<ListEntry['list']>>>;

const scopeKey = (tenantId: string, mode: string) => `${tenantId}\n${mode}`;
const entryKey = (kind: string, value: string) => `${kind}\n${value}`;

function apply(lists: Lists, c: Change): void {
  const scope = scopeKey(c.tenantId, c.mode);
  let entries = lists.get(scope);
  if (!entries) {
    if (c.op === 'remove') return;
    lists.set(scope, (entries = new Map()));
  }
  const key = entryKey(c.kind, c.value);
  const on = entries.get(key);
  if (c.op === 'add') {
    if (on) on.add(c.list);
    else entries.set(key, new Set([c.list]));
  } else if (on) {
    on.delete(c.list);
    if (on.size === 0) entries.delete(key);
  }
}

// An announcement: a change, or undefined for "reload everything" ('*', a scope's reload, or
// anything not understood).
function changeOf(payload: string): Change | undefined {
  try {
    const p = JSON.parse(payload) as { op?: string; tenant_id?: string; mode?: string; list?: string; kind?: string; value?: string };
    if (
      (p.op === 'add' || p.op === 'remove') &&
      p.tenant_id &&
      (p.mode === 'live' || p.mode === 'test') &&
      (p.list === 'allow' || p.list === 'block') &&
      p.kind &&
      typeof p.value === 'string'
    ) {
      return { op: p.op, tenantId: p.tenant_id, mode: p.mode, list: p.list, kind: p.kind, value: p.value };
    }
  } catch {
    // Reloaded below.
  }
  return undefined;
}

export function createListDirectory(db: Queryable): ListDirectory {
  let lists: Lists = new Map();
  // Changes announced while a load runs (one at a time), applied after it.
  let buffered: Change[] | undefined;

  const memory = announcedMemory(LIST_CHANNEL, 'lists', async (generation) => {
    buffered = [];
    try {
      const entries = await allListEntries(db);
      if (generation !== memory.generation()) return;
      const next: Lists = new Map();
      for (const e of entries) apply(next, { op: 'add', ...e });
      for (const c of buffered) apply(next, c);
      lists = next;
      memory.markLoaded(generation);
    } finally {
      buffered = undefined;
    }
  });

  const announced = (payload: string) => {
    const change = changeOf(payload);
    if (!change) return memory.reload();
    if (buffered) buffered.push(change);
    apply(lists, change);
  };

  return {
    trusted: memory.trusted,
    whenLoaded: memory.whenLoaded,
    async match(scope, candidates) {
      if (!memory.trusted()) return matchLists(db, scope, candidates);
      const entries = lists.get(scopeKey(scope.tenantId, scope.mode));
      if (!entries || candidates.length === 0) return [];
      const hits: ListHit[] = [];
      for (const c of candidates) {
        const on = entries.get(entryKey(c.kind, c.value));
        if (on) for (const list of on) hits.push({ list, kind: c.kind, value: c.value });
      }
      return hits;
    },
    watch: (deps) => memory.watch(deps, announced),
  };
}
