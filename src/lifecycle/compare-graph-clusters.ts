// The last steps of `doorman graph verify` (src/lifecycle/verify-graph.ts), once the nodes are
// compared and the model holds the whole scope: the clusters as the connected parts of the live
// links, the marks, and each cluster's facts (members, accounts, confirmed abuse, trust,
// chargebacks: what a verdict reads) from the marks that stand about it.
import type { Record as Neo4jRecord } from 'neo4j-driver';
import { linkOfStoredEvent } from '../events/received-event.js';
import {
  accountMember,
  confirmedAtOf,
  identifierMember,
  identifierName,
  type ExpectedFacts,
  type GraphModel,
} from '../graph/graph-model.js';
import type { GraphLink } from '../graph/identity-graph.js';
import { storedEventsByIds } from './graph-history-store.js';
import { num, readGraph, type GraphCheck } from './graph-check.js';

// 5. Clusters: the connected parts of the live links (`roots`: each member's part), each one
// cluster of its own. Returns the part each cluster of the graph holds.
export function compareParts(c: GraphCheck, roots: Map<string, string>): Map<string, string> {
  const membersOf = new Map<string, string[]>();
  for (const [member, root] of roots) {
    const m = membersOf.get(root);
    if (m) m.push(member);
    else membersOf.set(root, [member]);
  }
  const clusterPart = new Map<string, string>();
  for (const [root, members] of membersOf) {
    const id = clusterOfPart(c, members);
    if (id === null) continue;
    const other = clusterPart.get(id);
    if (other !== undefined && other !== root) {
      c.differ({
        type: 'wrong_cluster',
        what: 'cluster',
        subject: id,
        expected: 'one part per cluster',
        found: 'holds members of separate parts',
      });
    } else clusterPart.set(id, root);
  }
  return clusterPart;
}

// The cluster the graph holds a part's members in (null: none). Members in no cluster, or in
// several, are differences; the first cluster named stands for the part.
function clusterOfPart(c: GraphCheck, members: string[]): string | null {
  const clusters = new Map<string | null, number>();
  for (const m of members) {
    const cluster = graphClusterOf(c.model, m);
    if (cluster === undefined) continue; // missing from the graph: reported by an earlier step
    clusters.set(cluster, (clusters.get(cluster) ?? 0) + 1);
  }
  const named = [...clusters.keys()].filter((id): id is string => id !== null);
  const subject = members.slice(0, 5).join(' ') + (members.length > 5 ? ` (+${members.length - 5})` : '');
  if (clusters.has(null)) {
    c.differ({ type: 'wrong_cluster', what: 'cluster', subject, expected: 'one cluster for all', found: 'members in no cluster' });
  }
  if (named.length > 1) c.differ({ type: 'wrong_cluster', what: 'cluster', subject, expected: 'one cluster', found: named });
  return named[0] ?? null;
}

// The cluster the graph holds a member in, as the account and identifier steps noted it
// (undefined: the member is not in the graph).
function graphClusterOf(model: GraphModel, member: string): string | null | undefined {
  if (member.startsWith('[')) return model.accounts.get(JSON.parse(member)[1] as string)?.graphCluster;
  return model.identifiers.get(member.slice(1))?.graphCluster;
}

// For each event a mark is about, the members whose clusters the mark is in: its account, or (no
// account) the member identifiers it used. The events are read from Postgres a thousand at a time.
export async function markedEventMembers(c: GraphCheck): Promise<Map<string, string[]>> {
  const { model } = c;
  const eventAnchors = [...new Set([...model.marks.values()].filter((m) => m.anchorKind === 'event').map((m) => m.anchorValue))];
  const eventMembers = new Map<string, string[]>();
  for (let i = 0; i < eventAnchors.length; i += 1000) {
    for (const e of await storedEventsByIds(c.deps.db, c.scope, eventAnchors.slice(i, i + 1000))) {
      const l = linkOfStoredEvent(c.scope, e, c.deps.config.hubThreshold, c.linkPolicy);
      if (!l) continue;
      eventMembers.set(e.id, l.account !== null ? [accountMember(l.account)] : memberIdentifiers(model, l));
    }
  }
  return eventMembers;
}

const memberIdentifiers = (model: GraphModel, l: GraphLink): string[] =>
  l.ids
    .map((x) => identifierName(x.kind, x.value))
    .filter((n) => {
      const i = model.identifiers.get(n);
      return i && model.isMember(i);
    })
    .map(identifierMember);

// 6. Marks: each standing mark of the model standing in the graph, and no other standing there.
export async function compareMarks(c: GraphCheck): Promise<void> {
  const { tenantId, mode } = c.scope;
  const seenMarks = new Set<string>();
  const retractedInGraph = new Set<string>();
  for await (const r of readGraph(c.deps, 'verify/marks', { tenantId, mode })) {
    const key = r.get('key') as string;
    const retracted = r.get('retracted') as boolean;
    const mark = c.model.marks.get(key);
    if (mark && !retracted) seenMarks.add(key);
    if (!mark && !retracted) {
      c.differ({ type: 'stale_mark', what: 'mark', subject: key, expected: 'retracted or absent', found: 'standing' });
      c.repair.retract.push(key);
    }
    if (mark && retracted) retractedInGraph.add(key);
  }
  for (const [key, m] of c.model.marks) {
    if (!seenMarks.has(key)) {
      c.repair.remark.push({ kind: 'mark', payload: m });
      const found = retractedInGraph.has(key) ? 'retracted' : 'absent';
      c.differ({ type: 'missing_mark', what: 'mark', subject: key, expected: 'standing', found });
    }
  }
}

const noFacts = (): ExpectedFacts => ({ size: 0, accounts: 0, confirmedAbuse: false, falsePositive: false, chargebacks: 0, abuse: [] });

// 7. Each cluster of the graph: a part of its own, with the facts its part must have (`facts`, by
// part root). A cluster with wrong facts is recomputed by a repair. Returns how many clusters the
// graph holds.
export async function compareClusterFacts(
  c: GraphCheck,
  clusterPart: Map<string, string>,
  facts: Map<string, ExpectedFacts>,
): Promise<number> {
  const { tenantId, mode } = c.scope;
  let clusters = 0;
  for await (const r of readGraph(c.deps, 'verify/clusters', { tenantId, mode })) {
    clusters += 1;
    const id = r.get('id') as string;
    const root = clusterPart.get(id);
    if (root === undefined) {
      const found = { members: num(r.get('members')) };
      c.differ({ type: 'wrong_cluster', what: 'cluster', subject: id, expected: 'no such cluster', found });
      continue;
    }
    const want: ExpectedFacts = facts.get(root) ?? noFacts();
    const wrong = wrongFacts(want, r);
    if (Object.keys(wrong).length > 0) c.repair.recompute.add(id);
    for (const [field, d] of Object.entries(wrong)) {
      c.differ({ type: 'wrong_facts', what: 'cluster', subject: `${id} ${field}`, expected: d.expected, found: d.found });
    }
  }
  return clusters;
}

// The facts a cluster's row records (and counts from its members) that differ from what they
// must be, by field.
function wrongFacts(want: ExpectedFacts, r: Neo4jRecord): Record<string, { expected: unknown; found: unknown }> {
  const got = {
    size: num(r.get('size')),
    accounts: num(r.get('accounts')),
    members: num(r.get('members')),
    memberAccounts: num(r.get('memberAccounts')),
    confirmedAbuse: r.get('confirmedAbuse') === true,
    falsePositive: r.get('falsePositive') === true,
    chargebacks: num(r.get('chargebacks')) ?? 0,
    abuse: [...(r.get('abuse') as string[])].sort(),
  };
  const wrong: Record<string, { expected: unknown; found: unknown }> = {};
  if (got.size !== want.size || got.members !== want.size) {
    wrong.size = { expected: want.size, found: { recorded: got.size, members: got.members } };
  }
  if (got.accounts !== want.accounts || got.memberAccounts !== want.accounts) {
    wrong.accounts = { expected: want.accounts, found: { recorded: got.accounts, members: got.memberAccounts } };
  }
  if (got.confirmedAbuse !== want.confirmedAbuse) wrong.confirmedAbuse = { expected: want.confirmedAbuse, found: got.confirmedAbuse };
  if (got.falsePositive !== want.falsePositive) wrong.falsePositive = { expected: want.falsePositive, found: got.falsePositive };
  if (got.chargebacks !== want.chargebacks) wrong.chargebacks = { expected: want.chargebacks, found: got.chargebacks };
  if (got.abuse.join('\n') !== want.abuse.join('\n')) wrong.abuse = { expected: want.abuse, found: got.abuse };
  return wrong;
}

// 8. Each account's `confirmedAt`: the time of the earliest standing confirmed_abuse mark about it
// (the verdict's read finds a hub's marked accounts by it). The repair's recluster sets it anew
// for the whole scope.
export function compareAccountMarks(c: GraphCheck, eventMembers: Map<string, string[]>): void {
  const want = confirmedAtOf(c.model, eventMembers);
  for (const [externalId, account] of c.model.accounts) {
    if (account.graphConfirmedAt === undefined) continue; // missing from the graph: reported by step 3
    const expected = want.get(externalId) ?? null;
    if (account.graphConfirmedAt !== expected) {
      c.differ({ type: 'wrong_facts', what: 'account', subject: `${externalId} confirmedAt`, expected, found: account.graphConfirmedAt });
    }
  }
}
