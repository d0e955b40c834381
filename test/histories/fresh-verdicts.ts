// Invariant 2 of a settled history: a fresh verdict sees exactly what stands in
// Postgres, on every instance. It cites cluster_confirmed_abuse iff a confirmed_abuse mark that
// stands (feedback not retracted, a denial not undone; read from Postgres) lies in the cluster it
// joins (where the mark's subject lies in the graph: the account, the email, or the event's account
// or, for an event without one, its identifiers); it cites blocklisted / allowlisted iff the entry
// is on the list in Postgres; it is judged by the policy version in force in Postgres.
// The fresh verdicts are logins: of each account the graph knows or a list names (on both
// instances), and of each identifier the graph holds (email, phone, device; one instance each,
// taking turns), one at a time after the link lag, since each anonymous login counts toward its
// identifier's hub threshold.
import type { Deps } from '../../src/deps.js';
import { pendingGraphOps } from '../../src/graph/graph-outbox-store.js';
import { kindLinkPolicy } from '../../src/graph/link-policy.js';
import { versionsInForce } from '../../src/policies/documents/policy-store.js';
import { emailIdentity } from '../../src/signals/email/normalize-email.js';
import { call, type ApiResponse } from '../support/api-client.js';
import { liveKey, type HistoryState } from './history-state.js';
import type { Instance, World } from './history-world.js';

type Standing = { kind: string; value: string }[];

async function standingAbuse(deps: Deps, s: HistoryState): Promise<Standing> {
  const { rows } = await deps.db.query<{ kind: string; value: string }>(
    `SELECT subject_kind AS kind, subject_value AS value FROM feedback
      WHERE tenant_id = $1 AND mode = $2 AND outcome = 'confirmed_abuse' AND retracted_at IS NULL
     UNION ALL
     SELECT 'event_id', event_id FROM reviews
      WHERE tenant_id = $1 AND mode = $2 AND status = 'denied' AND marks_retracted_at IS NULL`,
    [s.scope.tenantId, s.scope.mode],
  );
  return rows;
}

const WHERE_SUBJECT: Record<string, string> = {
  external_user_id: 'MATCH (:Account {tenantId: $t, mode: $m, externalId: $v})-[:IN]->(c:Cluster) RETURN c.id AS id',
  email: "MATCH (:Identifier {tenantId: $t, mode: $m, kind: 'email', value: $v})-[:IN]->(c:Cluster) RETURN c.id AS id",
  event_id: `MATCH (e:Event {tenantId: $t, mode: $m, id: $v})
             OPTIONAL MATCH (e)-[:BY]->(:Account)-[:IN]->(ca:Cluster)
             OPTIONAL MATCH (e)-[:USED]->(:Identifier)-[:IN]->(ci:Cluster) WHERE NOT EXISTS { (e)-[:BY]->(:Account) }
             UNWIND [ca.id, ci.id] AS id WITH id WHERE id IS NOT NULL RETURN DISTINCT id`,
};

// The clusters where a standing confirmed_abuse mark's subject lies.
async function markedClusters(deps: Deps, s: HistoryState, standing: Standing): Promise<Set<string>> {
  const marked = new Set<string>();
  for (const m of standing) {
    const v = m.kind === 'email' ? (emailIdentity(m.value) ?? m.value) : m.value;
    const { records } = await deps.graph.executeQuery(WHERE_SUBJECT[m.kind]!, { t: s.scope.tenantId, m: s.scope.mode, v });
    for (const r of records) marked.add(r.get('id') as string);
  }
  return marked;
}

const codesOf = (res: ApiResponse): string[] => ((res.body.reasons ?? []) as { code: string }[]).map((r) => r.code);
const graphMissing = (res: ApiResponse) =>
  ((res.body.reasons ?? []) as { code: string; detail?: { sources?: string } }[]).some(
    (r) => (r.code === 'timeout_failopen' || r.code === 'partial_enrichment') && (r.detail?.sources ?? '').includes('graph'),
  );

async function applied(deps: Deps, s: HistoryState): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await pendingGraphOps(deps.db, s.scope)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

export async function checkFreshVerdicts(world: World, deps: Deps, s: HistoryState): Promise<void> {
  const { tenantId, mode } = s.scope;
  const { rows: entries } = await deps.db.query<{ list: string; kind: string; value: string }>(
    'SELECT list, kind, value FROM list_entries WHERE tenant_id = $1 AND mode = $2',
    [tenantId, mode],
  );
  const inForce = (await versionsInForce(deps.db, s.scope))[0]?.version ?? deps.engine.policy.version;
  await deps.policies.refresh(s.scope);
  const linkPolicy = deps.policies.forScope(s.scope).graph;
  const standing = await standingAbuse(deps, s);
  s.log.push(`   fresh verdicts; standing confirmed_abuse: ${standing.map((m) => `${m.kind}=${m.value}`).join(' ') || 'none'}`);

  // One login; a late graph read (the machine is shared) says nothing about the marks, so it is
  // asked again, twice. Every one answered is acknowledged like the history's own.
  const login = async (
    instance: Instance,
    fields: Record<string, unknown>,
    what: Record<string, unknown>,
    expectAbuse: boolean | undefined,
  ) => {
    let res: ApiResponse | undefined;
    for (let tries = 0; tries < 3 && (!res || (res.status === 200 && graphMissing(res))); tries++) {
      const body = { event_type: 'login', ip: '100.64.31.1', ...fields, context: { hist: `${tenantId}:check:${(s.counters.tags += 1)}` } };
      res = await call(instance.base, 'POST', '/v1/verdict', { key: liveKey(s), body, timeoutMs: 20_000 });
      if (res.status === 200)
        s.acks.push({
          tag: body.context.hist,
          id: res.body.id,
          body,
          verdict: res.body.verdict,
          ...(typeof fields.external_user_id === 'string' && { account: fields.external_user_id }),
        });
    }
    const where = { instance: instance.name, ...what, event: res!.body.id };
    if (res!.status !== 200) {
      s.anomalies.push({ kind: 'unexpected_status', detail: { ...where, request: 'fresh verdict', status: res!.status, body: res!.body } });
      return;
    }
    const codes = codesOf(res!);
    for (const [kind, value] of Object.entries(fields)) {
      const listKind = kind === 'external_user_id' || kind === 'email' ? kind : undefined;
      if (!listKind) continue;
      for (const list of ['block', 'allow'] as const) {
        const onList = entries.some(
          (e) => e.list === list && e.kind === listKind && e.value === (listKind === 'email' ? emailIdentity(String(value)) : value),
        );
        if (codes.includes(`${list}listed`) !== onList)
          s.anomalies.push({ kind: 'list_differs', detail: { ...where, list, onListInPostgres: onList, cited: !onList } });
      }
    }
    if (res!.body.policy_version !== inForce)
      s.anomalies.push({ kind: 'policy_differs', detail: { ...where, inForce, judgedBy: res!.body.policy_version } });
    if (expectAbuse !== undefined && !graphMissing(res!) && codes.includes('cluster_confirmed_abuse') !== expectAbuse) {
      s.anomalies.push({ kind: 'marks_differ', detail: { ...where, expected: expectAbuse, standing, reasons: res!.body.reasons } });
    }
  };

  // Accounts: a login carrying only the account changes no cluster, so one reading serves all.
  const marked = await markedClusters(deps, s, standing);
  const { records } = await deps.graph.executeQuery(
    'MATCH (a:Account {tenantId: $t, mode: $m}) OPTIONAL MATCH (a)-[:IN]->(c:Cluster) RETURN a.externalId AS x, c.id AS id',
    { t: tenantId, m: mode },
  );
  const clusterOf = new Map(records.map((r) => [r.get('x') as string, r.get('id') as string | null]));
  const accounts = [
    ...new Set([...clusterOf.keys(), ...s.listValues.filter((v) => v.kind === 'external_user_id').map((v) => v.value)]),
  ].sort();
  for (const x of accounts) {
    const cluster = clusterOf.get(x);
    for (const instance of world.instances)
      await login(instance, { external_user_id: x }, { external_user_id: x, cluster }, cluster ? marked.has(cluster) : false);
  }

  // Identifiers, each read again after the previous login was applied.
  const tokenOf = new Map(s.deviceIds.map((id, n) => [id, s.deviceTokens[n]!]));
  const ids = (
    await deps.graph.executeQuery(
      "MATCH (i:Identifier {tenantId: $t, mode: $m}) WHERE i.kind IN ['email', 'phone', 'device'] RETURN i.kind AS kind, i.value AS value ORDER BY kind, value",
      { t: tenantId, m: mode },
    )
  ).records.map((r) => ({ kind: r.get('kind') as string, value: r.get('value') as string }));
  for (const v of s.listValues)
    if (v.kind === 'email' && !ids.some((i) => i.kind === 'email' && i.value === v.value)) ids.push({ kind: 'email', value: v.value });
  for (const [n, id] of ids.entries()) {
    const fields =
      id.kind === 'email'
        ? { email: id.value }
        : id.kind === 'phone'
          ? { identity: { phone: id.value } }
          : { device_token: tokenOf.get(id.value) };
    if (id.kind === 'device' && !fields.device_token) continue;
    await applied(deps, s);
    const { records: state } = await deps.graph.executeQuery(
      `MATCH (i:Identifier {tenantId: $t, mode: $m, kind: $kind, value: $value}) OPTIONAL MATCH (i)-[:IN]->(c:Cluster)
       RETURN coalesce(i.linking, true) AND NOT coalesce(i.hub, false) AS linking, coalesce(i.accounts, 0) + coalesce(i.anonymous, 0) AS uses, c.id AS cluster`,
      { t: tenantId, m: mode, ...id },
    );
    const r = state[0];
    // This login joins the identifier's cluster unless it does not link or this login makes it a hub.
    const joins =
      r !== undefined &&
      r.get('linking') === true &&
      Number(r.get('uses')) + 1 <= kindLinkPolicy(linkPolicy, id.kind, deps.config.hubThreshold).hub;
    const cluster = r?.get('cluster') as string | null | undefined;
    const expected = joins && !!cluster && (await markedClusters(deps, s, standing)).has(cluster);
    await login(world.instances[n % 2]!, fields, { identifier: `${id.kind}:${id.value}`, cluster }, expected);
  }
}
