// Warming the graph before a process serves verdicts: connections opened, each natural-key index
// read into Neo4j's page cache, the writer's statements planned, and the verdict's read repeated
// until it answers well inside the signal deadline. Neo4j's runtime compiles its operators over
// the first executions after a restart, so one run leaves the next verdicts still slow.
import neo4j, { type Driver } from 'neo4j-driver';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { planGraphWrites } from './apply-graph-ops.js';
import type { CypherCatalog } from './cypher-catalog.js';
import { readClusterFacts, type GraphLink } from './identity-graph.js';

// What warming the graph reads; the composition root (src/deps.ts) passes its Deps.
export interface WarmGraphDeps {
  graph: Driver;
  cypher: CypherCatalog;
  logger: Logger;
  config: Pick<Config, 'signalDeadlineMs'>;
}

// Bounds on repeating the verdict's read: rounds and time.
const READ_ROUNDS = 40;
const READ_BUDGET_MS = 5_000;
// A scope of its own, never a tenant's.
const WARM = { tenantId: '__warmup__', mode: 'test' };

// Shapes of real events: with and without an account, with one to four identifiers.
function warmLink(round: number): GraphLink {
  const ids = [
    { kind: 'email', value: `warmup${round}@doorman.invalid` },
    { kind: 'device', value: `warmup-device-${round}` },
    { kind: 'card', value: `warmup-card-${round}` },
    { kind: 'phone', value: `+1555000${round}` },
  ].slice(0, 1 + (round % 4));
  return {
    ...WARM,
    eventId: `evt_warmup_${round}`,
    eventType: 'signup',
    at: Date.now(),
    account: round % 2 ? `warmup_${round}` : null,
    ids,
    card: null,
    cardCountry: null,
    hubThreshold: 25,
  };
}

async function warmVerdictRead(deps: WarmGraphDeps): Promise<number> {
  const deadline = Date.now() + READ_BUDGET_MS;
  const fastEnough = Math.max(5, deps.config.signalDeadlineMs / 5);
  let fast = 0;
  let round = 0;
  while (round < READ_ROUNDS && Date.now() < deadline && fast < 5) {
    const started = performance.now();
    await readClusterFacts(deps.graph, deps.cypher, warmLink(round), deps.config.signalDeadlineMs * 20);
    const took = performance.now() - started;
    fast = took < fastEnough ? fast + 1 : 0;
    round += 1;
  }
  return round;
}

// A few driver connections opened, so the first verdicts do not open them.
export async function openGraphConnections(graph: Driver, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => graph.executeQuery('RETURN 1', {}, { routing: neo4j.routing.READ })));
}

export async function warmGraph(deps: WarmGraphDeps): Promise<void> {
  const read = { routing: neo4j.routing.READ, transactionConfig: { timeout: 20_000 } } as const;
  // Each natural-key index read once into the page cache (cypher/warm-up/index-scans).
  await deps.graph.executeQuery(deps.cypher.get('warm-up/index-scans'), {}, read);
  await planGraphWrites(deps.graph, deps.cypher);
  const rounds = await warmVerdictRead(deps);
  deps.logger.debug({ rounds }, 'verdict graph read warmed');
}
