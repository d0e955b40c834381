// Use case: `doorman graph verify` (issue 37). Recomputes what a scope's graph must hold from
// Postgres alone, with the rebuild's own projection (src/lifecycle/graph-projection.ts) folded by
// the writer's rules (src/graph/graph-model.ts), and compares it with Neo4j: every event's link
// (BY and USED), every account's links (LINKED, live or expired), every identifier's hub state,
// the clusters as the connected parts of the live links, each cluster's facts (members, accounts,
// confirmed abuse, trust, chargebacks: what a verdict reads), and every mark (standing or not).
// Reads stream: events page by page, the graph's rows through a cursor; memory holds the scope's
// accounts, identifiers and their links, never its events.
// With `repair`, what it found is queued through the outbox in one transaction with its audit
// entry, and the lane's writer applies it in order: the events' links again (idempotent), marks
// missing, retractions of marks that no longer stand, forgets of what Postgres no longer holds,
// then a recluster of the scope under its link policy (hubs, expiry, parts and facts recomputed).
import neo4j, { type Driver, type Record as Neo4jRecord } from 'neo4j-driver';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { Scope } from '../scope.js';
import { inTransaction } from '../db/queryable.js';
import { newId } from '../db/new-id.js';
import { audit, type Actor } from '../audit/audit-store.js';
import {
  accountMember, componentsOf, expectedLive, factsOf, GraphModel, identifierMember, identifierName, type ExpectedFacts,
} from '../graph/graph-model.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import type { GraphLink } from '../graph/identity-graph.js';
import { linkOfStoredEvent } from '../events/received-event.js';
import { linkPolicyParams } from '../graph/link-policy.js';
import type { GraphOp } from '../graph/graph-outbox-store.js';
import { linkPolicyInForce, projectScope, type ProjectionDeps } from './graph-projection.js';
import { storedEventIds, storedEventsByIds, storedEventsOfAccounts } from './graph-history-store.js';

export type DifferenceType =
  | 'missing_node' | 'extra_node'
  | 'missing_link' | 'extra_link' | 'link_state'
  | 'wrong_hub' | 'wrong_cluster' | 'wrong_facts'
  | 'missing_mark' | 'stale_mark';

export interface GraphDifference {
  type: DifferenceType;
  // What it is about: 'event', 'account', 'identifier', 'cluster', 'mark'; an edge: 'BY', 'USED', 'LINKED'.
  what: string;
  subject: string;
  expected?: unknown;
  found?: unknown;
}

export interface VerifyResult {
  ok: boolean;
  checked: { events: number; accounts: number; identifiers: number; links: number; marks: number; clusters: number };
  differences: GraphDifference[];
  // Differences past the first `limit` are counted, not listed.
  more: number;
  repaired?: { queued: number };
}

// What a verification needs: the projection's, and the graph to compare it with. The composition
// root (src/deps.ts) passes its Deps.
export interface VerifyDeps extends ProjectionDeps {
  graph: Driver;
  cypher: CypherCatalog;
  config: Pick<Config, 'hubThreshold' | 'graphExpirySweepMs'>;
  clock: Clock;
  // Only a repair writes (through the outbox).
  graphOutbox?: GraphOutbox;
}

const num = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

async function* stream(
  deps: Pick<VerifyDeps, 'graph' | 'cypher'>, name: string, params: Record<string, unknown>,
): AsyncGenerator<Neo4jRecord> {
  const session = deps.graph.session({ defaultAccessMode: neo4j.session.READ, fetchSize: 1000 });
  try {
    for await (const record of session.run(deps.cypher.get(name), params)) yield record;
  } finally {
    await session.close();
  }
}

export async function verifyGraph(
  deps: VerifyDeps,
  scope: Scope,
  options: { repair?: boolean; actor?: Actor; limit?: number } = {},
): Promise<VerifyResult> {
  const limit = options.limit ?? 1000;
  const now = deps.clock.now().getTime();
  // A link whose time ran out since the writer's last sweep may still be live in the graph.
  const graceMs = 2 * deps.config.graphExpirySweepMs + 5000;
  const differences: GraphDifference[] = [];
  let more = 0;
  const differ = (d: GraphDifference) => {
    if (differences.length < limit) differences.push(d);
    else more += 1;
  };
  const { tenantId, mode } = scope;
  const linkPolicy = await linkPolicyInForce(deps, scope);
  const model = new GraphModel();
  // What repair queues: links of events found different, marks missing, keys to retract.
  const relink = new Map<string, GraphLink>();
  const remark: GraphOp[] = [];
  const retract: string[] = [];
  const forgetEvents: string[] = [];
  const forgetAccounts: string[] = [];
  const forgetIds: { kind: string; value: string }[] = [];
  // Accounts whose links differ: their events are linked again.
  const relinkAccounts = new Set<string>();
  const recompute = new Set<string>();
  let events = 0;

  // 1. Events: each page of the projection against the graph's side of those events.
  for await (const page of projectScope(deps, scope, linkPolicy)) {
    const links: GraphLink[] = [];
    for (const op of page.ops) {
      if (op.kind === 'link') {
        model.apply(op.payload);
        links.push(op.payload);
      } else if (op.kind === 'mark') model.mark(op.payload);
    }
    events += page.events;
    if (links.length === 0) continue;
    const found = new Map<string, { account: string | null; used: { kind: string; value: string; anonymous: boolean; expiresAt: unknown; expiredAt: unknown }[] }>();
    for await (const r of stream(deps, 'verify/events', { tenantId, mode, ids: links.map((l) => l.eventId) })) {
      found.set(r.get('id') as string, { account: r.get('account') as string | null, used: r.get('used') as never });
    }
    for (const l of links) {
      const g = found.get(l.eventId);
      if (!g) {
        differ({ type: 'missing_node', what: 'event', subject: l.eventId });
        relink.set(l.eventId, l);
        continue;
      }
      let wrong = false;
      if (g.account !== l.account) {
        differ({ type: g.account === null ? 'missing_link' : 'extra_link', what: 'BY', subject: l.eventId, expected: l.account, found: g.account });
        wrong = true;
      }
      const used = new Map(g.used.map((u) => [identifierName(u.kind, u.value), u]));
      for (const id of l.ids) {
        const name = identifierName(id.kind, id.value);
        const u = used.get(name);
        used.delete(name);
        if (!u) {
          differ({ type: 'missing_link', what: 'USED', subject: `${l.eventId} ${name}` });
          wrong = true;
        } else if (u.anonymous !== (l.account === null)) {
          differ({ type: 'link_state', what: 'USED', subject: `${l.eventId} ${name}`, expected: { anonymous: l.account === null }, found: { anonymous: u.anonymous } });
          wrong = true;
        } else if (l.account === null) {
          const use = model.anonymous.get(l.eventId)?.get(name);
          if (use) {
            const graphLive = num(u.expiredAt) === null && (num(u.expiresAt) === null || num(u.expiresAt)! > now);
            use.graphLive = graphLive;
            const e = expectedLive(use, now, graceMs);
            if (e !== 'either' && e !== graphLive) differ({ type: 'link_state', what: 'USED', subject: `${l.eventId} ${name}`, expected: { live: e }, found: { live: graphLive } });
          }
        }
      }
      for (const name of used.keys()) differ({ type: 'extra_link', what: 'USED', subject: `${l.eventId} ${name}` });
      if (wrong) relink.set(l.eventId, l);
    }
  }

  // 2. Events only the graph holds (erased, retained away, or never stored).
  let batch: string[] = [];
  const flushIds = async () => {
    const stored = await storedEventIds(deps.db, scope, batch);
    for (const id of batch) {
      if (!stored.has(id)) {
        differ({ type: 'extra_node', what: 'event', subject: id });
        forgetEvents.push(id);
      }
    }
    batch = [];
  };
  for await (const r of stream(deps, 'verify/event-ids', { tenantId, mode })) {
    batch.push(r.get('id') as string);
    if (batch.length >= 1000) await flushIds();
  }
  await flushIds();
  // Events a stored link names but the graph holds without (a stored event with no identifier and
  // no account has no node): those are counted above as missing.

  // 3. Accounts and their links.
  const seenAccounts = new Set<string>();
  for await (const r of stream(deps, 'verify/accounts', { tenantId, mode })) {
    const externalId = r.get('externalId') as string;
    const account = model.accounts.get(externalId);
    if (!account) {
      differ({ type: 'extra_node', what: 'account', subject: externalId });
      forgetAccounts.push(externalId);
      continue;
    }
    seenAccounts.add(externalId);
    if (Number(r.get('clusters')) > 1) differ({ type: 'wrong_cluster', what: 'account', subject: externalId, expected: 1, found: Number(r.get('clusters')) });
    account.graphCluster = r.get('cluster') as string | null;
    const expected = model.linked.get(externalId) ?? new Map();
    const linked = r.get('linked') as { kind: string; value: string; expiresAt: unknown; expiredAt: unknown }[];
    const found = new Set<string>();
    for (const k of linked) {
      const name = identifierName(k.kind, k.value);
      found.add(name);
      const l = expected.get(name);
      if (!l) {
        differ({ type: 'extra_link', what: 'LINKED', subject: `${externalId} ${name}` });
        continue;
      }
      const graphLive = num(k.expiredAt) === null && (num(k.expiresAt) === null || num(k.expiresAt)! > now);
      l.graphLive = graphLive;
      const e = expectedLive(l, now, graceMs);
      if (e !== 'either' && e !== graphLive) differ({ type: 'link_state', what: 'LINKED', subject: `${externalId} ${name}`, expected: { live: e }, found: { live: graphLive } });
    }
    for (const name of expected.keys()) {
      if (!found.has(name)) {
        differ({ type: 'missing_link', what: 'LINKED', subject: `${externalId} ${name}` });
        relinkAccounts.add(externalId);
      }
    }
  }
  for (const externalId of model.accounts.keys()) {
    if (!seenAccounts.has(externalId)) {
      differ({ type: 'missing_node', what: 'account', subject: externalId });
      relinkAccounts.add(externalId);
    }
  }

  // 4. Identifiers: present, hub or not, member of a cluster or not.
  const seenIds = new Set<string>();
  for await (const r of stream(deps, 'verify/identifiers', { tenantId, mode })) {
    const kind = r.get('kind') as string;
    const value = r.get('value') as string;
    const name = identifierName(kind, value);
    const i = model.identifiers.get(name);
    if (!i) {
      differ({ type: 'extra_node', what: 'identifier', subject: name });
      forgetIds.push({ kind, value });
      continue;
    }
    seenIds.add(name);
    i.graphCluster = r.get('cluster') as string | null;
    const hub = r.get('hub') as boolean;
    if (hub !== model.isHub(i)) differ({ type: 'wrong_hub', what: 'identifier', subject: name, expected: { hub: model.isHub(i), accounts: i.accounts, anonymous: i.anonymous, threshold: i.hubAt }, found: { hub, accounts: num(r.get('accounts')), anonymous: num(r.get('anonymous')) } });
    if (Number(r.get('clusters')) > 1) differ({ type: 'wrong_cluster', what: 'identifier', subject: name, expected: 1, found: Number(r.get('clusters')) });
    if (!model.isMember(i) && i.graphCluster !== null) differ({ type: 'wrong_cluster', what: 'identifier', subject: name, expected: null, found: i.graphCluster });
  }
  for (const name of model.identifiers.keys()) if (!seenIds.has(name)) differ({ type: 'missing_node', what: 'identifier', subject: name });

  // 5. Clusters: the connected parts of the live links, each one cluster of its own.
  const roots = componentsOf(model, now, graceMs);
  const clusterOf = (member: string): string | null | undefined => {
    if (member.startsWith('[')) return model.accounts.get(JSON.parse(member)[1] as string)?.graphCluster;
    return model.identifiers.get(member.slice(1))?.graphCluster;
  };
  const partCluster = new Map<string, string | null>();
  const clusterPart = new Map<string, string>();
  const membersOf = new Map<string, string[]>();
  for (const [member, root] of roots) {
    const m = membersOf.get(root);
    if (m) m.push(member);
    else membersOf.set(root, [member]);
  }
  for (const [root, members] of membersOf) {
    const clusters = new Map<string | null, number>();
    for (const m of members) {
      const c = clusterOf(m);
      if (c === undefined) continue; // missing from the graph: reported above
      clusters.set(c, (clusters.get(c) ?? 0) + 1);
    }
    const named = [...clusters.keys()].filter((c): c is string => c !== null);
    const subject = members.slice(0, 5).join(' ') + (members.length > 5 ? ` (+${members.length - 5})` : '');
    if (clusters.has(null)) differ({ type: 'wrong_cluster', what: 'cluster', subject, expected: 'one cluster for all', found: 'members in no cluster' });
    if (named.length > 1) differ({ type: 'wrong_cluster', what: 'cluster', subject, expected: 'one cluster', found: named });
    const id = named[0] ?? null;
    partCluster.set(root, id);
    if (id !== null) {
      const other = clusterPart.get(id);
      if (other !== undefined && other !== root) differ({ type: 'wrong_cluster', what: 'cluster', subject: id, expected: 'one part per cluster', found: 'holds members of separate parts' });
      else clusterPart.set(id, root);
    }
  }

  // 6. Marks, and each cluster's facts from the marks that stand about it.
  const eventAnchors = [...new Set([...model.marks.values()].filter((m) => m.anchorKind === 'event').map((m) => m.anchorValue))];
  const eventMembers = new Map<string, string[]>();
  for (let i = 0; i < eventAnchors.length; i += 1000) {
    for (const e of await storedEventsByIds(deps.db, scope, eventAnchors.slice(i, i + 1000))) {
      const l = linkOfStoredEvent(scope, e, deps.config.hubThreshold, linkPolicy);
      if (!l) continue;
      eventMembers.set(e.id, l.account !== null ? [accountMember(l.account)]
        : l.ids.map((x) => identifierName(x.kind, x.value)).filter((n) => { const i = model.identifiers.get(n); return i && model.isMember(i); }).map(identifierMember));
    }
  }
  const facts = factsOf(model, roots, eventMembers);
  const seenMarks = new Set<string>();
  const retractedInGraph = new Set<string>();
  for await (const r of stream(deps, 'verify/marks', { tenantId, mode })) {
    const key = r.get('key') as string;
    const retracted = r.get('retracted') as boolean;
    const mark = model.marks.get(key);
    if (mark && !retracted) seenMarks.add(key);
    if (!mark && !retracted) {
      differ({ type: 'stale_mark', what: 'mark', subject: key, expected: 'retracted or absent', found: 'standing' });
      retract.push(key);
    }
    if (mark && retracted) retractedInGraph.add(key);
  }
  for (const [key, m] of model.marks) {
    if (!seenMarks.has(key)) {
      remark.push({ kind: 'mark', payload: m });
      differ({ type: 'missing_mark', what: 'mark', subject: key, expected: 'standing', found: retractedInGraph.has(key) ? 'retracted' : 'absent' });
    }
  }
  let clusters = 0;
  for await (const r of stream(deps, 'verify/clusters', { tenantId, mode })) {
    clusters += 1;
    const id = r.get('id') as string;
    const root = clusterPart.get(id);
    if (root === undefined) {
      differ({ type: 'wrong_cluster', what: 'cluster', subject: id, expected: 'no such cluster', found: { members: num(r.get('members')) } });
      continue;
    }
    const want: ExpectedFacts = facts.get(root) ?? { size: 0, accounts: 0, confirmedAbuse: false, falsePositive: false, chargebacks: 0, abuse: [] };
    const got = {
      size: num(r.get('size')), accounts: num(r.get('accounts')), members: num(r.get('members')), memberAccounts: num(r.get('memberAccounts')),
      confirmedAbuse: r.get('confirmedAbuse') === true, falsePositive: r.get('falsePositive') === true, chargebacks: num(r.get('chargebacks')) ?? 0,
      abuse: [...(r.get('abuse') as string[])].sort(),
    };
    const wrong: Record<string, { expected: unknown; found: unknown }> = {};
    if (got.size !== want.size || got.members !== want.size) wrong.size = { expected: want.size, found: { recorded: got.size, members: got.members } };
    if (got.accounts !== want.accounts || got.memberAccounts !== want.accounts) wrong.accounts = { expected: want.accounts, found: { recorded: got.accounts, members: got.memberAccounts } };
    if (got.confirmedAbuse !== want.confirmedAbuse) wrong.confirmedAbuse = { expected: want.confirmedAbuse, found: got.confirmedAbuse };
    if (got.falsePositive !== want.falsePositive) wrong.falsePositive = { expected: want.falsePositive, found: got.falsePositive };
    if (got.chargebacks !== want.chargebacks) wrong.chargebacks = { expected: want.chargebacks, found: got.chargebacks };
    if (got.abuse.join('\n') !== want.abuse.join('\n')) wrong.abuse = { expected: want.abuse, found: got.abuse };
    if (Object.keys(wrong).length > 0) recompute.add(id);
    for (const [field, d] of Object.entries(wrong)) differ({ type: 'wrong_facts', what: 'cluster', subject: `${id} ${field}`, expected: d.expected, found: d.found });
  }

  const total = differences.length + more;
  const result: VerifyResult = {
    ok: total === 0,
    checked: { events, accounts: model.accounts.size, identifiers: model.identifiers.size, links: model.links, marks: model.marks.size, clusters },
    differences,
    more,
  };
  if (options.repair && total > 0) {
    if (!deps.graphOutbox || !options.actor) throw new Error('verifyGraph: repair needs graphOutbox and an actor');
    const ops: GraphOp[] = [];
    const at = deps.clock.now().getTime();
    if (forgetEvents.length || forgetAccounts.length || forgetIds.length) {
      ops.push({ kind: 'forget', payload: { tenantId, mode, at, eventIds: forgetEvents, accounts: forgetAccounts, ids: forgetIds, feedbackKeys: [], erasureId: null } });
    }
    for (const e of await storedEventsOfAccounts(deps.db, scope, [...relinkAccounts])) {
      const l = linkOfStoredEvent(scope, e, deps.config.hubThreshold, linkPolicy);
      if (l && !relink.has(l.eventId)) relink.set(l.eventId, l);
    }
    for (const l of [...relink.values()].sort((a, b) => a.at - b.at)) ops.push({ kind: 'link', payload: l });
    ops.push(...remark);
    for (const key of retract) ops.push({ kind: 'retract', payload: { tenantId, mode, key, at } });
    ops.push({ kind: 'recluster', payload: { tenantId, mode, at, id: newId('rcl'), ...linkPolicyParams(linkPolicy, deps.config.hubThreshold), recompute: [...recompute] } });
    const outbox = deps.graphOutbox;
    const actor = options.actor;
    await inTransaction(deps.db, async (tx) => {
      await outbox.history(tx, scope, ops);
      await audit(tx, actor, 'graph.repair', null, { differences: total, queued: ops.length, types: [...new Set(differences.map((d) => d.type))] });
    });
    result.repaired = { queued: ops.length };
  }
  return result;
}
