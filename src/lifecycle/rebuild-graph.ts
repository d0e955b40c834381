// Use case: rebuild a scope's identity graph from Postgres (`doorman graph rebuild`), after a
// restore or to split clusters that retention or erasure left over-joined. The scope's graph is
// emptied, then every stored event's link, every feedback outcome and every review resolution is
// queued in the outbox in the order they happened, and the graph writer applies them as it applied
// the originals: the same clusters with the same facts. Verdicts of the scope during a rebuild
// read a partial graph; run it with the scope's traffic paused for an exact result.
import type { Scope } from '../scope.js';
import neo4j from 'neo4j-driver';
import type { Deps } from '../deps.js';
import { NEVER_SUPPRESSED } from '../engine/never-suppressed.js';
import type { GraphOp } from '../graph/graph-outbox-store.js';
import { pendingGraphOps } from '../graph/graph-outbox-store.js';
import { wakeGraphWriters } from '../graph/graph-writer.js';
import { graphLinkOf } from '../graph/identity-graph.js';
import { AppError } from '../errors.js';
import { emailIdentity } from '../signals/email/normalize-email.js';
import { enqueueInOrder, eventsPage, storedOutcomes, type StoredOutcome } from './graph-history-store.js';

const PAGE = 1000;
const ANCHOR = { event_id: 'event', external_user_id: 'account', email: 'email' } as const;

function markOf(scope: Scope, o: StoredOutcome): GraphOp {
  const anchorValue = o.subjectKind === 'email' ? (emailIdentity(o.value) ?? o.value) : o.value;
  return {
    kind: 'mark',
    payload: {
      tenantId: scope.tenantId, mode: scope.mode, at: o.at.getTime(),
      key: o.kind === 'resolution' ? `review:${o.value}` : `feedback:${o.subjectKind}:${o.value}:${o.outcome}`,
      anchorKind: ANCHOR[o.subjectKind], anchorValue, outcome: o.outcome,
      codes: o.outcome === 'false_positive' ? o.codes.filter((c) => !NEVER_SUPPRESSED.has(c)) : [],
    },
  };
}

export async function rebuildGraph(deps: Pick<Deps, 'db' | 'graph' | 'cypher' | 'config'>, scope: Scope, options: { waitMs?: number } = {}): Promise<{ events: number; marks: number }> {
  for (;;) {
    const { records } = await deps.graph.executeQuery(deps.cypher.get('graph/delete-scope-batch'), { tenantId: scope.tenantId, mode: scope.mode, limit: neo4j.int(5000) });
    if (Number(records[0]?.get('deleted') ?? 0) === 0) break;
  }
  const outcomes = await storedOutcomes(deps.db, scope);
  let next = 0;
  let events = 0;
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    const page = await eventsPage(deps.db, scope, after, PAGE);
    const ops: GraphOp[] = [];
    for (const e of page) {
      // Outcomes that happened before this event come first, as they did.
      while (next < outcomes.length && outcomes[next]!.at < e.createdAt) ops.push(markOf(scope, outcomes[next++]!));
      const card = e.request.payment?.card_fingerprint;
      const link = graphLinkOf(scope, {
        eventId: e.id, eventType: e.eventType, at: e.createdAt.getTime(), account: e.externalUserId ?? undefined, email: e.request.email,
        deviceId: e.deviceId ?? undefined, card, cardCountry: card ? e.request.payment?.card_country : undefined, identity: e.request.identity,
      }, deps.config.hubThreshold);
      if (link) {
        ops.push({ kind: 'link', payload: link });
        events += 1;
      }
    }
    if (page.length < PAGE) while (next < outcomes.length) ops.push(markOf(scope, outcomes[next++]!));
    await enqueueInOrder(deps.db, scope, ops);
    wakeGraphWriters(deps.db);
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
