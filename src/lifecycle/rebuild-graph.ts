// Use case: rebuild a scope's identity graph from Postgres (`doorman graph rebuild`), after a
// restore or to split clusters that retention or erasure left over-joined. A scope delete is queued
// in the outbox, then the scope's projection (src/lifecycle/graph-projection.ts: every stored
// event's link and every standing mark, in the order they happened; retracted outcomes and undone
// resolutions are not evidence and do not come back), and the graph writer applies them in its
// lane's order (the delete first, in batches) as it applied the originals. No graph write bypasses
// the writer. Verdicts of the scope during a rebuild read a partial graph; run it with the scope's
// traffic paused for an exact result.
import type { Scope } from '../scope.js';
import type { Clock } from '../clock.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import { pendingGraphOps } from '../graph/graph-outbox-store.js';
import { AppError } from '../errors.js';
import { linkPolicyInForce, projectScope, type ProjectionDeps } from './graph-projection.js';

// What a rebuild needs: the projection's, and the outbox it queues through. The composition root
// (src/deps.ts) passes its Deps.
export interface RebuildDeps extends ProjectionDeps {
  clock: Clock;
  graphOutbox: GraphOutbox;
}

export async function rebuildGraph(
  deps: RebuildDeps,
  scope: Scope,
  options: { waitMs?: number } = {},
): Promise<{ events: number; marks: number }> {
  // The links are rebuilt under the scope's link policy in force (a recluster is not needed after).
  const linkPolicy = await linkPolicyInForce(deps, scope);
  await deps.graphOutbox.deleteScope(deps.db, scope, deps.clock.now());
  let events = 0;
  let marks = 0;
  for await (const page of projectScope(deps, scope, linkPolicy)) {
    for (const op of page.ops) {
      if (op.kind === 'link') events += 1;
      else marks += 1;
    }
    await deps.graphOutbox.history(deps.db, scope, page.ops);
  }
  const deadline = Date.now() + (options.waitMs ?? 600_000);
  while ((await pendingGraphOps(deps.db, scope)) > 0) {
    if (Date.now() > deadline)
      throw new AppError('internal', 'The replay is queued but not yet applied: is a graph writer running (doorman serve or worker)?');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { events, marks };
}
