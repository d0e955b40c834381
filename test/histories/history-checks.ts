// The invariants a settled history must hold. Settled: every fault healed and the
// scope's graph outbox drained. Then:
//   1. the graph checker (doorman graph verify) finds no difference between Neo4j and Postgres;
//   2. a fresh verdict sees exactly what stands in Postgres, on every instance (fresh-verdicts.ts);
//   3. every revoked key is refused and every live key accepted, by every instance;
//   4. every acknowledged event is stored exactly once, an erased one is cleared everywhere
//      (Postgres, the graph, the velocity sets);
//   5. no 500 left a write behind: no event, outbox row or velocity member of a request that was
//      answered 500 (the events are tagged in `context`, which the contract stores and never uses;
//      an outbox row names its event).
import type { Deps } from '../../src/deps.js';
import { verifyGraph } from '../../src/lifecycle/verify-graph.js';
import { hashKey } from '../../src/tenants/api-key.js';
import { call } from '../support/api-client.js';
import { liveKey, type Anomaly, type HistoryState } from './history-state.js';
import type { World } from './history-world.js';

const SETTLE_MS = 60_000;

async function outboxRows(deps: Deps, s: HistoryState): Promise<{ waiting: number; failed: number }> {
  const { rows } = await deps.db.query<{ waiting: number; failed: number }>(
    `SELECT count(*) FILTER (WHERE failed_at IS NULL)::int AS waiting, count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed
       FROM graph_outbox WHERE tenant_id = $1 AND mode = $2`,
    [s.scope.tenantId, s.scope.mode],
  );
  return rows[0]!;
}

// Healed: every instance's memories of keys and lists are trusted again (their LISTEN
// connections prove themselves current and have loaded since; the policies' connection is made
// the same way, and a policy is read from Postgres while it cannot prove itself).
const listening = (world: World) => world.instances.every((i) => i.deps.keys.trusted() && i.deps.lists.trusted());

export async function settle(world: World, deps: Deps, s: HistoryState): Promise<void> {
  // An outbox row of an event that was never stored: a failed request's write left behind (once
  // applied, it would be an event in the graph that Postgres does not hold: checkStored).
  const { rows: orphans } = await deps.db.query<{ event_id: string }>(
    `SELECT o.event_id FROM graph_outbox o WHERE o.tenant_id = $1 AND o.mode = $2 AND o.event_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant_id = o.tenant_id AND e.mode = o.mode AND e.id = o.event_id)`,
    [s.scope.tenantId, s.scope.mode],
  );
  if (orphans.length > 0) s.anomalies.push({ kind: 'outbox_row_without_event', detail: { events: orphans.map((r) => r.event_id) } });
  await world.healAll();
  s.active = [];
  const deadline = Date.now() + SETTLE_MS;
  // A memory may answer from before a silent cut for as long as MEMORY_STALENESS_MS (its bound).
  const quietAt = world.lastCutAt() + world.instances[0].deps.config.memoryStalenessMs + 500;
  if (Date.now() < quietAt) await new Promise((resolve) => setTimeout(resolve, quietAt - Date.now()));
  while (!listening(world)) {
    if (Date.now() > deadline) {
      s.anomalies.push({ kind: 'not_listening', detail: { afterMs: SETTLE_MS } });
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (;;) {
    const { waiting, failed } = await outboxRows(deps, s);
    if (waiting === 0) {
      if (failed > 0) s.anomalies.push({ kind: 'outbox_row_set_aside', detail: { rows: failed } });
      return;
    }
    if (Date.now() > deadline) {
      s.anomalies.push({ kind: 'outbox_not_drained', detail: { waiting, afterMs: SETTLE_MS } });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function checkGraph(deps: Deps, s: HistoryState): Promise<void> {
  const result = await verifyGraph(deps, s.scope, { limit: 25 });
  s.log.push(
    `   settled; doorman graph verify: ${result.ok ? 'ok' : `${result.differences.length + result.more} difference(s)`} (checked ${JSON.stringify(result.checked)})`,
  );
  if (!result.ok)
    s.anomalies.push({ kind: 'graph_differs', detail: { differences: result.differences, more: result.more, checked: result.checked } });
}

// Revoked or not as Postgres says (a revocation whose answer was lost may have happened).
export async function checkKeys(world: World, deps: Deps, s: HistoryState): Promise<void> {
  const { rows } = await deps.db.query<{ key_hash: string; revoked: boolean }>(
    'SELECT key_hash, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE tenant_id = $1',
    [s.scope.tenantId],
  );
  for (const k of s.keys) {
    k.revoked = rows.find((r) => r.key_hash === hashKey(k.key))?.revoked ?? k.revoked;
    for (const instance of world.instances) {
      const { status } = await call(instance.base, 'GET', '/v1/events?limit=1', { key: k.key, timeoutMs: 10_000 });
      if (status !== (k.revoked ? 401 : 200))
        s.anomalies.push({
          kind: k.revoked ? 'revoked_key_accepted' : 'live_key_refused',
          detail: { instance: instance.name, key: `…${k.key.slice(-4)}`, status, atEnd: true },
        });
    }
  }
}

export async function checkStored(deps: Deps, s: HistoryState): Promise<void> {
  const { tenantId, mode } = s.scope;
  const { rows } = await deps.db.query<{
    id: string;
    tag: string | null;
    erased: boolean;
    external_user_id: string | null;
    email: string | null;
  }>(
    `SELECT id, request->'context'->>'hist' AS tag, coalesce((request->>'erased')::boolean, false) AS erased, external_user_id, email
       FROM events WHERE tenant_id = $1 AND mode = $2`,
    [tenantId, mode],
  );
  const stored = new Map(rows.map((r) => [r.id, r]));
  const acked = new Map(s.acks.map((a) => [a.id, a]));
  for (const a of s.acks) {
    const row = stored.get(a.id);
    if (!row) {
      s.anomalies.push({ kind: 'acknowledged_event_missing', detail: { id: a.id, tag: a.tag } });
      continue;
    }
    const erased = s.erased.has(a.id);
    if (erased && (!row.erased || row.external_user_id !== null || row.email !== null))
      s.anomalies.push({ kind: 'erased_event_kept', detail: { id: a.id } });
    if (!erased && !s.maybeErased.has(a.id) && row.erased)
      s.anomalies.push({ kind: 'event_erased_unasked', detail: { id: a.id, tag: a.tag } });
    if (!erased && !row.erased && !a.bindingUnknown && (row.external_user_id ?? undefined) !== a.account) {
      s.anomalies.push({ kind: 'binding_differs', detail: { id: a.id, expected: a.account ?? null, stored: row.external_user_id } });
    }
  }
  const byTag = new Map<string, string[]>();
  for (const r of rows) if (r.tag) byTag.set(r.tag, [...(byTag.get(r.tag) ?? []), r.id]);
  for (const [tag, ids] of byTag) if (ids.length > 1) s.anomalies.push({ kind: 'stored_twice', detail: { tag, ids } });
  // Events no 200 acknowledged: a 500's write left behind, unless its outcome was unknown.
  for (const r of rows) {
    if (acked.has(r.id) || (r.tag && s.ambiguousTags.has(r.tag))) continue;
    const failed = s.failed.find((f) => f.tag === r.tag);
    s.anomalies.push({
      kind: failed ? 'failed_request_left_event' : 'unacknowledged_event',
      detail: { id: r.id, tag: r.tag, ...(failed && { instance: 'AB'[failed.inst] }) },
    });
  }
  await checkVelocity(deps, s, new Set(rows.filter((r) => !r.erased).map((r) => r.id)));
  const { records } = await deps.graph.executeQuery('MATCH (e:Event {tenantId: $t, mode: $m}) RETURN e.id AS id', { t: tenantId, m: mode });
  for (const r of records) {
    const id = r.get('id') as string;
    const row = stored.get(id);
    if (!row || row.erased) s.anomalies.push({ kind: row ? 'erased_event_in_graph' : 'graph_event_not_stored', detail: { id } });
  }
}

// Every velocity member names an event that is stored and not erased.
async function checkVelocity(deps: Deps, s: HistoryState, live: Set<string>): Promise<void> {
  let cursor = '0';
  const left: { key: string; member: string }[] = [];
  do {
    const [next, keys] = await deps.redis.scan(cursor, 'MATCH', `vel:{${s.scope.tenantId}:${s.scope.mode}}:*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      for (const member of await deps.redis.zrange(key, '0', '-1')) {
        const id = member.includes('|') ? member.slice(member.indexOf('|') + 1) : member;
        if (!live.has(id)) left.push({ key: key.split(':').slice(3).join(':'), member });
      }
    }
  } while (cursor !== '0');
  if (left.length > 0) s.anomalies.push({ kind: 'velocity_member_left', detail: { members: left.slice(0, 10), count: left.length } });
}

export const anomalyLine = (a: Anomaly) => `${a.known ? `[known ${a.known}] ` : ''}${a.kind}: ${JSON.stringify(a.detail)}`;
