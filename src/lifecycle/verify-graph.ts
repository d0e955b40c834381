// Use case: `doorman graph verify`. Recomputes what a scope's graph must hold from Postgres alone,
// with the rebuild's own projection (src/lifecycle/graph-projection.ts) folded by the writer's
// rules (src/graph/graph-model.ts), and compares it with Neo4j: every event's link (BY and USED),
// every account's links (LINKED, live or expired), every identifier's hub state, the clusters as
// the connected parts of the live links, each cluster's facts (members, accounts, confirmed abuse,
// trust, chargebacks: what a verdict reads), every mark (standing or not), and each account's
// time of the earliest confirmed_abuse mark about it (what a verdict reads of a hub). The steps, in the
// order they run, are in compare-graph-nodes.ts and compare-graph-clusters.ts; what they share
// (the model, the differences, the repair's work) in graph-check.ts.
// Reads stream: events page by page, the graph's rows through a cursor; memory holds the scope's
// accounts, identifiers and their links, never its events.
// With `repair`, what it found is queued through the outbox in one transaction with its audit
// entry, and the lane's writer applies it in order: the events' links again (idempotent), marks
// missing, retractions of marks that no longer stand, forgets of what Postgres no longer holds,
// then a recluster of the scope under its link policy (hubs, expiry, parts and facts recomputed).
import type { Scope } from '../scope.js';
import { inTransaction } from '../db/queryable.js';
import { newId } from '../db/new-id.js';
import { audit, type Actor } from '../audit/audit-store.js';
import { componentsOf, factsOf } from '../graph/graph-model.js';
import { linkOfStoredEvent } from '../events/received-event.js';
import { linkPolicyParams } from '../graph/link-policy.js';
import type { GraphOp } from '../graph/graph-outbox-store.js';
import { storedEventsOfAccounts } from './graph-history-store.js';
import { startGraphCheck, type GraphCheck, type GraphDifference, type VerifyDeps } from './graph-check.js';
import { compareAccounts, compareEvents, compareIdentifiers, findGraphOnlyEvents } from './compare-graph-nodes.js';
import { compareAccountMarks, compareClusterFacts, compareMarks, compareParts, markedEventMembers } from './compare-graph-clusters.js';

export type { DifferenceType, GraphDifference, VerifyDeps } from './graph-check.js';

export interface VerifyResult {
  ok: boolean;
  checked: { events: number; accounts: number; identifiers: number; links: number; marks: number; clusters: number };
  differences: GraphDifference[];
  // Differences past the first `limit` are counted, not listed.
  more: number;
  repaired?: { queued: number };
}

export async function verifyGraph(
  deps: VerifyDeps,
  scope: Scope,
  options: { repair?: boolean; actor?: Actor; limit?: number } = {},
): Promise<VerifyResult> {
  const c = await startGraphCheck(deps, scope, options.limit ?? 1000);
  const events = await compareEvents(c);
  await findGraphOnlyEvents(c);
  await compareAccounts(c);
  await compareIdentifiers(c);
  const roots = componentsOf(c.model, c.now, c.graceMs);
  const clusterPart = compareParts(c, roots);
  const eventMembers = await markedEventMembers(c);
  const facts = factsOf(c.model, roots, eventMembers);
  await compareMarks(c);
  const clusters = await compareClusterFacts(c, clusterPart, facts);
  compareAccountMarks(c, eventMembers);

  const { model, differences, more } = c;
  const total = differences.length + more;
  const result: VerifyResult = {
    ok: total === 0,
    checked: {
      events,
      accounts: model.accounts.size,
      identifiers: model.identifiers.size,
      links: model.links,
      marks: model.marks.size,
      clusters,
    },
    differences,
    more,
  };
  if (options.repair && total > 0) result.repaired = await queueRepair(c, options.actor, total);
  return result;
}

// Queues the repair of what the check found, with its audit entry, in one transaction.
async function queueRepair(c: GraphCheck, actor: Actor | undefined, total: number): Promise<{ queued: number }> {
  const { deps, scope, differences } = c;
  if (!deps.graphOutbox || !actor) throw new Error('verifyGraph: repair needs graphOutbox and an actor');
  const ops = await repairOps(c, deps.clock.now().getTime());
  const outbox = deps.graphOutbox;
  await inTransaction(deps.db, async (tx) => {
    await outbox.history(tx, scope, ops);
    const types = [...new Set(differences.map((d) => d.type))];
    await audit(tx, actor, 'graph.repair', null, { differences: total, queued: ops.length, types });
  });
  return { queued: ops.length };
}

// The outbox rows of a repair, in the order the writer must apply them: forgets, the events'
// links again (those found different, and every event of an account whose links differ) in the
// order they happened, missing marks, retractions, then the scope's recluster.
async function repairOps(c: GraphCheck, at: number): Promise<GraphOp[]> {
  const { deps, scope, linkPolicy, repair } = c;
  const { tenantId, mode } = scope;
  const ops: GraphOp[] = [];
  if (repair.forgetEvents.length || repair.forgetAccounts.length || repair.forgetIds.length) {
    const { forgetEvents: eventIds, forgetAccounts: accounts, forgetIds: ids } = repair;
    ops.push({ kind: 'forget', payload: { tenantId, mode, at, eventIds, accounts, ids, feedbackKeys: [], erasureId: null } });
  }
  for (const e of await storedEventsOfAccounts(deps.db, scope, [...repair.relinkAccounts])) {
    const l = linkOfStoredEvent(scope, e, deps.config.hubThreshold, linkPolicy);
    if (l && !repair.relink.has(l.eventId)) repair.relink.set(l.eventId, l);
  }
  for (const l of [...repair.relink.values()].sort((a, b) => a.at - b.at)) ops.push({ kind: 'link', payload: l });
  ops.push(...repair.remark);
  for (const key of repair.retract) ops.push({ kind: 'retract', payload: { tenantId, mode, key, at } });
  const policy = linkPolicyParams(linkPolicy, deps.config.hubThreshold);
  ops.push({ kind: 'recluster', payload: { tenantId, mode, at, id: newId('rcl'), ...policy, recompute: [...repair.recompute] } });
  return ops;
}
