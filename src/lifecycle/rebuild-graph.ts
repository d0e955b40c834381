// Use case: rebuild a scope's identity graph from Postgres (`doorman graph rebuild`), after a
// restore or to split clusters that retention or erasure left over-joined. A scope delete is queued
// in the outbox, then every stored event's link, every feedback outcome and every review resolution
// in the order they happened, and the graph writer applies them in its lane's order (the delete
// first, in batches) as it applied the originals: the same clusters with the same facts. No graph
// write bypasses the writer. Verdicts of the scope during a rebuild
// read a partial graph; run it with the scope's traffic paused for an exact result.
import type { Scope } from '../scope.js';
import type { Deps } from '../deps.js';
import { markOf } from '../graph/graph-outbox.js';
import { pendingGraphOps, type GraphOp } from '../graph/graph-outbox-store.js';
import { graphLinkOf } from '../graph/identity-graph.js';
import { AppError } from '../errors.js';
import { eventsPage, storedOutcomes, type StoredOutcome } from './graph-history-store.js';

const PAGE = 1000;
const markOfOutcome = (scope: Scope, o: StoredOutcome): GraphOp => ({
  kind: 'mark',
  payload: markOf(scope, { source: o.kind === 'resolution' ? 'review' : 'feedback', subject: { kind: o.subjectKind, value: o.value }, outcome: o.outcome, at: o.at, codes: o.codes }),
});

export async function rebuildGraph(deps: Pick<Deps, 'db' | 'config' | 'clock' | 'graphOutbox' | 'policies'>, scope: Scope, options: { waitMs?: number } = {}): Promise<{ events: number; marks: number }> {
  // The links are rebuilt under the scope's link policy in force (a recluster is not needed after).
  await deps.policies.refresh(scope);
  const linkPolicy = deps.policies.forScope(scope).graph;
  await deps.graphOutbox.deleteScope(deps.db, scope, deps.clock.now());
  const outcomes = await storedOutcomes(deps.db, scope);
  let next = 0;
  let events = 0;
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    const page = await eventsPage(deps.db, scope, after, PAGE);
    const ops: GraphOp[] = [];
    for (const e of page) {
      // Outcomes that happened before this event come first, as they did.
      while (next < outcomes.length && outcomes[next]!.at < e.createdAt) ops.push(markOfOutcome(scope, outcomes[next++]!));
      const card = e.request.payment?.card_fingerprint;
      const link = graphLinkOf(scope, {
        eventId: e.id, eventType: e.eventType, at: e.createdAt.getTime(), account: e.externalUserId ?? undefined, email: e.request.email,
        deviceId: e.deviceId ?? undefined, card, cardCountry: card ? e.request.payment?.card_country : undefined, identity: e.request.identity,
      }, deps.config.hubThreshold, linkPolicy);
      if (link) {
        ops.push({ kind: 'link', payload: link });
        events += 1;
      }
    }
    if (page.length < PAGE) while (next < outcomes.length) ops.push(markOfOutcome(scope, outcomes[next++]!));
    await deps.graphOutbox.history(deps.db, scope, ops);
    if (page.length < PAGE) break;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  const deadline = Date.now() + (options.waitMs ?? 600_000);
  while ((await pendingGraphOps(deps.db, scope)) > 0) {
    if (Date.now() > deadline) throw new AppError('internal', 'The replay is queued but not yet applied: is a graph writer running (doorman serve or worker)?');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { events, marks: outcomes.length };
}
