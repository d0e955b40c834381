// The invariants a settled history must hold (issue 37). Settled: every fault healed and the
// scope's graph outbox drained. Then:
//   1. the graph checker (doorman graph verify) finds no difference between Neo4j and Postgres;
//   2. a fresh verdict sees exactly what stands in Postgres, on every instance: it cites
//      cluster_confirmed_abuse iff a confirmed_abuse mark that stands (feedback not retracted, a
//      denial not undone) lies in the account's cluster; blocklisted / allowlisted iff the entry is
//      on the list; and it is judged by the policy version in force;
//   3. every revoked key is refused and every live key accepted, by every instance;
//   4. every acknowledged event is stored exactly once, an erased one is cleared everywhere
//      (Postgres, the graph, the velocity sets);
//   5. no 500 left a write behind: no event, outbox row or velocity member of a request that was
//      answered 500 (the events are tagged in `context`, which the contract stores and never uses).
import type { Deps } from '../../src/deps.js';
import { versionsInForce } from '../../src/policies/documents/policy-store.js';
import { verifyGraph } from '../../src/lifecycle/verify-graph.js';
import { emailIdentity } from '../../src/signals/email/normalize-email.js';
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

export async function settle(world: World, deps: Deps, s: HistoryState): Promise<void> {
  await world.healAll();
  s.active = [];
  const deadline = Date.now() + SETTLE_MS;
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
  s.log.push(`   settled; doorman graph verify: ${result.ok ? 'ok' : `${result.differences.length + result.more} difference(s)`} (checked ${JSON.stringify(result.checked)})`);
  if (!result.ok) s.anomalies.push({ kind: 'graph_differs', detail: { differences: result.differences, more: result.more, checked: result.checked } });
}

// The clusters (ids) holding a confirmed_abuse mark that stands in Postgres, found where the
// mark's subject lies in the graph, and each account's cluster.
async function markedClusters(deps: Deps, s: HistoryState): Promise<{ marked: Set<string>; clusterOf: Map<string, string | null>; standing: string[] }> {
  const { tenantId, mode } = s.scope;
  const { rows } = await deps.db.query<{ kind: string; value: string }>(
    `SELECT subject_kind AS kind, subject_value AS value FROM feedback
      WHERE tenant_id = $1 AND mode = $2 AND outcome = 'confirmed_abuse' AND retracted_at IS NULL
     UNION ALL
     SELECT 'event_id', event_id FROM reviews
      WHERE tenant_id = $1 AND mode = $2 AND status = 'denied' AND marks_retracted_at IS NULL`,
    [tenantId, mode],
  );
  const marked = new Set<string>();
  for (const m of rows) {
    const query = {
      external_user_id: 'MATCH (:Account {tenantId: $t, mode: $m, externalId: $v})-[:IN]->(c:Cluster) RETURN c.id AS id',
      email: "MATCH (:Identifier {tenantId: $t, mode: $m, kind: 'email', value: $v})-[:IN]->(c:Cluster) RETURN c.id AS id",
      event_id: `MATCH (e:Event {tenantId: $t, mode: $m, id: $v})
                 OPTIONAL MATCH (e)-[:BY]->(:Account)-[:IN]->(ca:Cluster)
                 OPTIONAL MATCH (e)-[:USED]->(:Identifier)-[:IN]->(ci:Cluster) WHERE NOT EXISTS { (e)-[:BY]->(:Account) }
                 UNWIND [ca.id, ci.id] AS id WITH id WHERE id IS NOT NULL RETURN DISTINCT id`,
    }[m.kind]!;
    const value = m.kind === 'email' ? (emailIdentity(m.value) ?? m.value) : m.value;
    const { records } = await deps.graph.executeQuery(query, { t: tenantId, m: mode, v: value });
    for (const r of records) marked.add(r.get('id') as string);
  }
  const { records } = await deps.graph.executeQuery(
    'MATCH (a:Account {tenantId: $t, mode: $m}) OPTIONAL MATCH (a)-[:IN]->(c:Cluster) RETURN a.externalId AS x, c.id AS id',
    { t: tenantId, m: mode },
  );
  const clusterOf = new Map(records.map((r) => [r.get('x') as string, r.get('id') as string | null]));
  return { marked, clusterOf, standing: rows.map((m) => `${m.kind}=${m.value}`) };
}

const codesOf = (body: Record<string, any>): string[] => ((body.reasons ?? []) as { code: string }[]).map((r) => r.code);
const graphMissing = (body: Record<string, any>) => ((body.reasons ?? []) as { code: string; detail?: { sources?: string } }[])
  .some((r) => (r.code === 'timeout_failopen' || r.code === 'partial_enrichment') && (r.detail?.sources ?? '').includes('graph'));

// Fresh verdicts on every instance: logins of the accounts the graph knows or the lists name, and
// of the emails the lists name. Each is acknowledged like any other verdict of the history.
export async function checkFreshVerdicts(world: World, deps: Deps, s: HistoryState): Promise<void> {
  const { marked, clusterOf, standing } = await markedClusters(deps, s);
  const { rows: entries } = await deps.db.query<{ list: string; kind: string; value: string }>(
    'SELECT list, kind, value FROM list_entries WHERE tenant_id = $1 AND mode = $2', [s.scope.tenantId, s.scope.mode],
  );
  const onList = (list: string, kind: string, value: string) => entries.some((e) => e.list === list && e.kind === kind && e.value === value);
  const inForce = (await versionsInForce(deps.db, s.scope))[0]?.version ?? deps.engine.policy.version;
  const accounts = [...new Set([...clusterOf.keys(), ...s.listValues.filter((v) => v.kind === 'external_user_id').map((v) => v.value)])].sort();
  const subjects = [
    ...accounts.map((x) => ({ kind: 'external_user_id' as const, value: x })),
    ...s.listValues.filter((v) => v.kind === 'email'),
  ];
  s.log.push(`   fresh verdicts: ${subjects.map((x) => x.value).join(' ')} on A and B; standing confirmed_abuse: ${standing.join(' ') || 'none'}`);
  for (const subject of subjects) {
    for (const instance of world.instances) {
      const body: Record<string, unknown> = { event_type: 'login', ip: '100.64.31.1', [subject.kind]: subject.value };
      const send = async () => {
        const tagged = { ...body, context: { hist: `${s.scope.tenantId}:check:${(s.counters.tags += 1)}` } };
        const r = await call(instance.base, 'POST', '/v1/verdict', { key: liveKey(s), body: tagged, timeoutMs: 20_000 });
        if (r.status === 200) s.acks.push({ tag: (tagged.context as { hist: string }).hist, id: r.body.id, body: tagged, verdict: r.body.verdict, ...(subject.kind === 'external_user_id' && { account: subject.value }) });
        return r;
      };
      let res = await send();
      // A late graph read (the machine is shared) says nothing about the marks: asked again, twice.
      for (let tries = 0; tries < 2 && res.status === 200 && graphMissing(res.body); tries++) res = await send();
      if (res.status !== 200) {
        s.anomalies.push({ kind: 'unexpected_status', detail: { request: 'fresh verdict', instance: instance.name, status: res.status, body: res.body } });
        continue;
      }
      const codes = codesOf(res.body);
      const where = { instance: instance.name, [subject.kind]: subject.value, event: res.body.id };
      for (const list of ['block', 'allow'] as const) {
        const code = `${list}listed`;
        const expected = onList(list, subject.kind, subject.value);
        if (codes.includes(code) !== expected) s.anomalies.push({ kind: 'list_differs', detail: { ...where, list, onListInPostgres: expected, cited: codes.includes(code) } });
      }
      if (res.body.policy_version !== inForce) s.anomalies.push({ kind: 'policy_differs', detail: { ...where, inForce, judgedBy: res.body.policy_version } });
      if (subject.kind !== 'external_user_id' || graphMissing(res.body)) continue;
      const cluster = clusterOf.get(subject.value);
      const expected = cluster !== undefined && cluster !== null && marked.has(cluster);
      if (codes.includes('cluster_confirmed_abuse') !== expected) {
        s.anomalies.push({ kind: 'marks_differ', detail: { ...where, cluster, standingConfirmedAbuse: standing, markedClusters: [...marked], expected, cited: codes.includes('cluster_confirmed_abuse'), reasons: res.body.reasons } });
      }
    }
  }
}

export async function checkKeys(world: World, s: HistoryState): Promise<void> {
  for (const k of s.keys) {
    for (const instance of world.instances) {
      const { status } = await call(instance.base, 'GET', '/v1/events?limit=1', { key: k.key, timeoutMs: 10_000 });
      if (status !== (k.revoked ? 401 : 200)) s.anomalies.push({ kind: k.revoked ? 'revoked_key_accepted' : 'live_key_refused', detail: { instance: instance.name, key: `…${k.key.slice(-4)}`, status, atEnd: true } });
    }
  }
}

export async function checkStored(deps: Deps, s: HistoryState): Promise<void> {
  const { tenantId, mode } = s.scope;
  const { rows } = await deps.db.query<{ id: string; tag: string | null; erased: boolean; external_user_id: string | null; email: string | null }>(
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
    if (erased && (!row.erased || row.external_user_id !== null || row.email !== null)) s.anomalies.push({ kind: 'erased_event_kept', detail: { id: a.id } });
    if (!erased && !s.maybeErased.has(a.id) && row.erased) s.anomalies.push({ kind: 'event_erased_unasked', detail: { id: a.id, tag: a.tag } });
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
    s.anomalies.push({ kind: failed ? 'failed_request_left_event' : 'unacknowledged_event', detail: { id: r.id, tag: r.tag, ...(failed && { instance: 'AB'[failed.inst] }) } });
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
