// Use case: recompute a scope's clusters from its links under the tenant's link policy (`doorman
// graph recluster`; after a policy change, which takes effect this way). The work is queued in the
// outbox and applied by the lane's writer in order with the links and marks around it (no graph
// write bypasses the writer); this waits for it and reads back what changed.
import type pg from 'pg';
import neo4j, { type Driver } from 'neo4j-driver';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { Scope } from '../scope.js';
import { AppError } from '../errors.js';
import { newId } from '../db/new-id.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import { pendingGraphOps } from '../graph/graph-outbox-store.js';
import { linkPolicyParams } from '../graph/link-policy.js';
import type { ReclusterResult } from '../graph/recluster.js';
import type { PolicyRegistry } from '../policies/documents/policy-registry.js';

// What a recluster needs; the composition root (src/deps.ts) passes its Deps.
export interface ReclusterDeps {
  db: pg.Pool;
  graph: Driver;
  cypher: CypherCatalog;
  config: Pick<Config, 'hubThreshold'>;
  clock: Clock;
  graphOutbox: GraphOutbox;
  policies: PolicyRegistry;
}

export async function reclusterGraph(deps: ReclusterDeps, scope: Scope, options: { waitMs?: number } = {}): Promise<ReclusterResult> {
  await deps.policies.refresh(scope);
  const policy = deps.policies.forScope(scope);
  const id = newId('rcl');
  await deps.graphOutbox.recluster(deps.db, scope, {
    at: deps.clock.now().getTime(),
    id,
    ...linkPolicyParams(policy.graph, deps.config.hubThreshold),
  });
  const deadline = Date.now() + (options.waitMs ?? 600_000);
  for (;;) {
    const { records } = await deps.graph.executeQuery(
      deps.cypher.get('graph/recluster-result'),
      { ...scope, id },
      { routing: neo4j.routing.READ },
    );
    const r = records[0];
    if (r)
      return {
        clustersBefore: r.get('clustersBefore'),
        clustersAfter: r.get('clustersAfter'),
        split: r.get('split'),
        merged: r.get('merged'),
      };
    if (Date.now() > deadline) {
      const waiting = await pendingGraphOps(deps.db, scope);
      throw new AppError(
        'internal',
        `The recluster is queued but not yet applied (${waiting} rows wait in the scope's outbox): is a graph writer running (doorman serve or worker)?`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
