// `doorman graph check`: counts the relationships that cross scopes. Analysts' own Cypher is kept
// in its scope by scoping every node pattern; that holds only if no relationship leads out of a
// scope, which every write statement keeps (test/graph/scope-invariant.test.ts) and this checks
// on the stored graph; and the nodes that carry no scope at all (none may: the writer's lane
// fences carry its own). Also reports Neo4j's per-transaction memory cap, which bounds those queries.
import neo4j, { type Driver } from 'neo4j-driver';
import type { CypherCatalog } from './cypher-catalog.js';

// What the scope check needs; the composition root (src/deps.ts) passes its Deps.
export interface ScopeCheckDeps {
  graph: Driver;
  cypher: CypherCatalog;
}

export interface ScopeCheck {
  crossScopeRelationships: number;
  byType: Record<string, number>;
  unscopedNodes: number;
  unscopedByLabels: Record<string, number>;
  transactionMemoryMax: string | null;
}

export async function checkGraphScopes(deps: ScopeCheckDeps): Promise<ScopeCheck> {
  const read = { routing: neo4j.routing.READ };
  const { records } = await deps.graph.executeQuery(deps.cypher.get('checks/cross-scope-relationships'), {}, read);
  const byType = Object.fromEntries(records.map((r) => [r.get('type') as string, Number(r.get('relationships'))]));
  const unscoped = await deps.graph.executeQuery(deps.cypher.get('checks/unscoped-nodes'), {}, read);
  const unscopedByLabels = Object.fromEntries(
    unscoped.records.map((r) => [(r.get('labels') as string[]).join(':'), Number(r.get('nodes'))]),
  );
  // SHOW SETTINGS needs the privilege to read settings; without it the cap is simply not reported.
  const memory = await deps.graph.executeQuery(deps.cypher.get('checks/transaction-memory-max'), {}, read).catch(() => null);
  return {
    crossScopeRelationships: Object.values(byType).reduce((a, b) => a + b, 0),
    byType,
    unscopedNodes: Object.values(unscopedByLabels).reduce((a, b) => a + b, 0),
    unscopedByLabels,
    transactionMemoryMax: (memory?.records[0]?.get('value') as string | undefined) ?? null,
  };
}
