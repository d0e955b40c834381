// Warming a process before it serves verdicts: in-process data (ip intelligence, device-token
// keys, the published policies, API keys and lists), connections
// opened (Postgres, Neo4j), Neo4j's plans for the verdict's read and the writer's statements,
// the graph's indexes read into Neo4j's page cache, the velocity script loaded into Redis, and
// the engine run a few times so the JIT has compiled it. A cold start otherwise spends the first
// verdicts' signal budget on plans and page faults (timeout_failopen on a healthy, idle service).
import type { Redis } from 'ioredis';
import neo4j, { type Driver } from 'neo4j-driver';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { evaluate } from './engine/evaluate.js';
import type { Policy } from './engine/policy.js';
import type { Rule } from './engine/rule.js';
import { planGraphWrites } from './graph/apply-graph-ops.js';
import type { CypherCatalog } from './graph/cypher-catalog.js';
import { readClusterFacts, type GraphLink } from './graph/identity-graph.js';
import type { IpIntel } from './signals/ip/ip-intel.js';
import { loadVelocityScript } from './velocity/velocity-store.js';

// What warming reads, named here rather than taken from deps.ts, which builds the warm-up.
export interface WarmUpDeps {
  config: Config;
  logger: Logger;
  db: pg.Pool;
  graph: Driver;
  redis: Redis;
  cypher: CypherCatalog;
  // Only what warming calls: the device-key ring's reload and the policy registry's load.
  secrets: { deviceKeys: { reload(): Promise<unknown> } };
  ipIntel: IpIntel;
  engine: { rules: readonly Rule[]; policy: Policy };
  policies: { load(): Promise<unknown> };
  // The keys and lists held in memory (src/tenants/key-directory.ts, src/lists/list-directory.ts).
  keys: { whenLoaded(ms: number): Promise<void> };
  lists: { whenLoaded(ms: number): Promise<void> };
}

const WARM = { tenantId: '__warmup__', mode: 'test' };
// The verdict's graph read is repeated until it answers well inside the signal deadline (Neo4j's
// runtime compiles its operators over the first executions after a restart, so one run leaves
// the next verdicts still slow), bounded in rounds and time.
const READ_ROUNDS = 40;
const READ_BUDGET_MS = 5_000;

// Shapes of real events: with and without an account, with one to four identifiers.
function warmLink(round: number): GraphLink {
  const ids = [
    { kind: 'email', value: `warmup${round}@doorman.invalid` },
    { kind: 'device', value: `warmup-device-${round}` },
    { kind: 'card', value: `warmup-card-${round}` },
    { kind: 'phone', value: `+1555000${round}` },
  ].slice(0, 1 + (round % 4));
  return {
    ...WARM, eventId: `evt_warmup_${round}`, eventType: 'signup', at: Date.now(), account: round % 2 ? `warmup_${round}` : null,
    ids, card: null, cardCountry: null, hubThreshold: 25,
  };
}

async function warmVerdictRead(deps: WarmUpDeps): Promise<number> {
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

async function warmGraph(deps: WarmUpDeps): Promise<void> {
  const read = { routing: neo4j.routing.READ, transactionConfig: { timeout: 20_000 } } as const;
  // Each natural-key index read once into the page cache (cypher/warm-up/index-scans).
  await deps.graph.executeQuery(deps.cypher.get('warm-up/index-scans'), {}, read);
  await planGraphWrites(deps.graph, deps.cypher);
  const rounds = await warmVerdictRead(deps);
  deps.logger.debug({ rounds }, 'verdict graph read warmed');
}

async function openConnections(deps: WarmUpDeps): Promise<void> {
  const n = Math.min(deps.config.pgPoolMax, 4);
  await Promise.all(Array.from({ length: n }, () => deps.db.query('SELECT 1')));
  await Promise.all(Array.from({ length: 4 }, () => deps.graph.executeQuery('RETURN 1', {}, { routing: neo4j.routing.READ })));
}

function warmEngine(deps: WarmUpDeps): void {
  for (let i = 0; i < 500; i++) {
    evaluate({ eventType: i % 2 ? 'signup' : 'checkout_attempt', velocity: { ipSignups: i % 30, cardAttempts: i % 9 }, missing: [] }, deps.engine.rules, deps.engine.policy);
  }
}

export async function warmUp(deps: WarmUpDeps): Promise<void> {
  const started = performance.now();
  const step = (name: string, work: Promise<unknown>) =>
    work.catch((err: Error) => deps.logger.warn({ step: name, err: err.message }, 'warm-up step failed; serving anyway'));
  await Promise.all([
    deps.ipIntel.reload().then(
      () => undefined,
      (err: Error) => deps.logger.error({ err: err.message, dir: deps.config.intelDir }, 'ip intelligence not loaded: ip signals off'),
    ),
    step('connections', openConnections(deps)).then(() => step('graph', warmGraph(deps))),
    step('redis', loadVelocityScript(deps.redis)),
    step('device keys', deps.secrets.deviceKeys.reload()),
    step('keys and lists', Promise.all([deps.keys.whenLoaded(5_000), deps.lists.whenLoaded(5_000)])),
    deps.policies.load().catch((err: Error) => deps.logger.error({ err: err.message }, 'policies not loaded: the shipped default is in force until they are')),
  ]);
  warmEngine(deps);
  deps.logger.info({ ms: Math.round(performance.now() - started) }, 'warmed up');
}
