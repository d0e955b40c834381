// Neo4j plans a statement the first time it sees it, which takes longer than the verdict's
// signal deadline: run link-event once at boot, in a scope no tenant can have, so the first
// real verdicts find the plan cached.
import type { Driver } from 'neo4j-driver';
import type { CypherCatalog } from './cypher-catalog.js';
import { linkEvent } from './identity-graph.js';

export async function warmGraph(graph: Driver, cypher: CypherCatalog): Promise<void> {
  const at = Date.now();
  await linkEvent(graph, cypher, {
    tenantId: '__warmup__', mode: 'test', eventId: 'evt_warmup', eventType: 'signup', at, account: 'warmup',
    ids: [{ kind: 'email', value: 'warmup@doorman.invalid' }], card: null, cardCountry: null,
    hubThreshold: 25, clusterId: 'clu_warmup', newEvent: false,
  }, 5_000);
}
