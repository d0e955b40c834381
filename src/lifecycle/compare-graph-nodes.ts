// The first steps of `doorman graph verify` (src/lifecycle/verify-graph.ts): the scope's nodes and
// their links. Events page by page (the projection's page against the graph's side of those
// events), then the events only the graph holds, then accounts with their LINKED links, then
// identifiers with their hub state. Each records what differs in the check and what a repair of it
// would queue; the account and identifier steps also note the cluster the graph holds each in.
import type { Record as Neo4jRecord } from 'neo4j-driver';
import { expectedLive, identifierName, type GraphModel } from '../graph/graph-model.js';
import type { GraphOp } from '../graph/graph-outbox-store.js';
import type { GraphLink } from '../graph/identity-graph.js';
import { projectScope } from './graph-projection.js';
import { storedEventIds } from './graph-history-store.js';
import { liveInGraph, num, readGraph, type GraphCheck } from './graph-check.js';

// An event as the graph holds it: its account (BY) and the identifiers it used (USED).
interface GraphEvent {
  account: string | null;
  used: { kind: string; value: string; anonymous: boolean; expiresAt: unknown; expiredAt: unknown }[];
}

// 1. Events: each page of the projection, folded into the model, against the graph's side of
// those events. Returns how many events Postgres holds.
export async function compareEvents(c: GraphCheck): Promise<number> {
  const { tenantId, mode } = c.scope;
  let events = 0;
  for await (const page of projectScope(c.deps, c.scope, c.linkPolicy)) {
    const links = foldPage(c.model, page.ops);
    events += page.events;
    if (links.length === 0) continue;
    const found = new Map<string, GraphEvent>();
    for await (const r of readGraph(c.deps, 'verify/events', { tenantId, mode, ids: links.map((l) => l.eventId) })) {
      found.set(r.get('id') as string, { account: r.get('account') as string | null, used: r.get('used') as never });
    }
    for (const l of links) compareEvent(c, l, found.get(l.eventId));
  }
  return events;
}

// Folds a page's links and marks into the model; returns its links.
function foldPage(model: GraphModel, ops: GraphOp[]): GraphLink[] {
  const links: GraphLink[] = [];
  for (const op of ops) {
    if (op.kind === 'link') {
      model.apply(op.payload);
      links.push(op.payload);
    } else if (op.kind === 'mark') model.mark(op.payload);
  }
  return links;
}

// One event's link against the graph's: a missing or wrong link is linked again by a repair.
function compareEvent(c: GraphCheck, l: GraphLink, g: GraphEvent | undefined): void {
  if (!g) {
    c.differ({ type: 'missing_node', what: 'event', subject: l.eventId });
    c.repair.relink.set(l.eventId, l);
    return;
  }
  let wrong = false;
  if (g.account !== l.account) {
    const type = g.account === null ? 'missing_link' : 'extra_link';
    c.differ({ type, what: 'BY', subject: l.eventId, expected: l.account, found: g.account });
    wrong = true;
  }
  const used = new Map(g.used.map((u) => [identifierName(u.kind, u.value), u]));
  for (const id of l.ids) {
    const name = identifierName(id.kind, id.value);
    const u = used.get(name);
    used.delete(name);
    if (compareUse(c, l, name, u)) wrong = true;
  }
  for (const name of used.keys()) c.differ({ type: 'extra_link', what: 'USED', subject: `${l.eventId} ${name}` });
  if (wrong) c.repair.relink.set(l.eventId, l);
}

// One identifier the event used against the graph's USED link. True when the event must be linked
// again; a live state that differs on an anonymous use is reported only (the recluster mends it).
function compareUse(c: GraphCheck, l: GraphLink, name: string, u: GraphEvent['used'][number] | undefined): boolean {
  if (!u) {
    c.differ({ type: 'missing_link', what: 'USED', subject: `${l.eventId} ${name}` });
    return true;
  }
  if (u.anonymous !== (l.account === null)) {
    const expected = { anonymous: l.account === null };
    c.differ({ type: 'link_state', what: 'USED', subject: `${l.eventId} ${name}`, expected, found: { anonymous: u.anonymous } });
    return true;
  }
  const use = l.account === null ? c.model.anonymous.get(l.eventId)?.get(name) : undefined;
  if (use) {
    const graphLive = liveInGraph(u.expiresAt, u.expiredAt, c.now);
    use.graphLive = graphLive;
    const e = expectedLive(use, c.now, c.graceMs);
    if (e !== 'either' && e !== graphLive) {
      c.differ({ type: 'link_state', what: 'USED', subject: `${l.eventId} ${name}`, expected: { live: e }, found: { live: graphLive } });
    }
  }
  return false;
}

// 2. Events only the graph holds (erased, retained away, or never stored), checked against
// Postgres a thousand at a time. Events a stored link names but the graph holds without (a stored
// event with no identifier and no account has no node) are counted by step 1 as missing.
export async function findGraphOnlyEvents(c: GraphCheck): Promise<void> {
  const { tenantId, mode } = c.scope;
  let batch: string[] = [];
  const flushIds = async () => {
    const stored = await storedEventIds(c.deps.db, c.scope, batch);
    for (const id of batch) {
      if (!stored.has(id)) {
        c.differ({ type: 'extra_node', what: 'event', subject: id });
        c.repair.forgetEvents.push(id);
      }
    }
    batch = [];
  };
  for await (const r of readGraph(c.deps, 'verify/event-ids', { tenantId, mode })) {
    batch.push(r.get('id') as string);
    if (batch.length >= 1000) await flushIds();
  }
  await flushIds();
}

// 3. Accounts and their links.
export async function compareAccounts(c: GraphCheck): Promise<void> {
  const { tenantId, mode } = c.scope;
  const seen = new Set<string>();
  for await (const r of readGraph(c.deps, 'verify/accounts', { tenantId, mode })) {
    const externalId = r.get('externalId') as string;
    const account = c.model.accounts.get(externalId);
    if (!account) {
      c.differ({ type: 'extra_node', what: 'account', subject: externalId });
      c.repair.forgetAccounts.push(externalId);
      continue;
    }
    seen.add(externalId);
    const clusters = Number(r.get('clusters'));
    if (clusters > 1) c.differ({ type: 'wrong_cluster', what: 'account', subject: externalId, expected: 1, found: clusters });
    account.graphCluster = r.get('cluster') as string | null;
    account.graphConfirmedAt = num(r.get('confirmedAt'));
    compareLinked(c, externalId, r);
  }
  for (const externalId of c.model.accounts.keys()) {
    if (!seen.has(externalId)) {
      c.differ({ type: 'missing_node', what: 'account', subject: externalId });
      c.repair.relinkAccounts.add(externalId);
    }
  }
}

// An account's LINKED links in the graph against the model's: extra, missing (its events are
// linked again by a repair), or live when they should not be (or the other way round).
function compareLinked(c: GraphCheck, externalId: string, r: Neo4jRecord): void {
  const expected = c.model.linked.get(externalId) ?? new Map();
  const linked = r.get('linked') as { kind: string; value: string; expiresAt: unknown; expiredAt: unknown }[];
  const found = new Set<string>();
  for (const k of linked) {
    const name = identifierName(k.kind, k.value);
    found.add(name);
    const l = expected.get(name);
    if (!l) {
      c.differ({ type: 'extra_link', what: 'LINKED', subject: `${externalId} ${name}` });
      continue;
    }
    const graphLive = liveInGraph(k.expiresAt, k.expiredAt, c.now);
    l.graphLive = graphLive;
    const e = expectedLive(l, c.now, c.graceMs);
    if (e !== 'either' && e !== graphLive) {
      c.differ({ type: 'link_state', what: 'LINKED', subject: `${externalId} ${name}`, expected: { live: e }, found: { live: graphLive } });
    }
  }
  for (const name of expected.keys()) {
    if (!found.has(name)) {
      c.differ({ type: 'missing_link', what: 'LINKED', subject: `${externalId} ${name}` });
      c.repair.relinkAccounts.add(externalId);
    }
  }
}

// 4. Identifiers: present, hub or not, member of a cluster or not.
export async function compareIdentifiers(c: GraphCheck): Promise<void> {
  const { tenantId, mode } = c.scope;
  const { model } = c;
  const seen = new Set<string>();
  for await (const r of readGraph(c.deps, 'verify/identifiers', { tenantId, mode })) {
    const kind = r.get('kind') as string;
    const value = r.get('value') as string;
    const name = identifierName(kind, value);
    const i = model.identifiers.get(name);
    if (!i) {
      c.differ({ type: 'extra_node', what: 'identifier', subject: name });
      c.repair.forgetIds.push({ kind, value });
      continue;
    }
    seen.add(name);
    i.graphCluster = r.get('cluster') as string | null;
    const hub = r.get('hub') as boolean;
    if (hub !== model.isHub(i)) {
      c.differ({
        type: 'wrong_hub',
        what: 'identifier',
        subject: name,
        expected: { hub: model.isHub(i), accounts: i.accounts, anonymous: i.anonymous, threshold: i.hubAt },
        found: { hub, accounts: num(r.get('accounts')), anonymous: num(r.get('anonymous')) },
      });
    }
    const clusters = Number(r.get('clusters'));
    if (clusters > 1) c.differ({ type: 'wrong_cluster', what: 'identifier', subject: name, expected: 1, found: clusters });
    if (!model.isMember(i) && i.graphCluster !== null) {
      c.differ({ type: 'wrong_cluster', what: 'identifier', subject: name, expected: null, found: i.graphCluster });
    }
  }
  for (const name of model.identifiers.keys()) if (!seen.has(name)) c.differ({ type: 'missing_node', what: 'identifier', subject: name });
}
