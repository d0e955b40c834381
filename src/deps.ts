// The composition root: builds every connection and shared service once. createApp(deps)
// uses them; tests override one by spreading ({ ...deps, clock }).
import type pg from 'pg';
import type { Driver } from 'neo4j-driver';
import { createPool } from './db/create-pool.js';
import { createGraphDriver } from './graph/create-graph-driver.js';
import { createAnalystGraph, type AnalystGraph } from './graph/analyst-graph.js';
import type { Redis } from 'ioredis';
import { createRedis as createRedisClient } from './redis/redis-client.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createLogger } from './logger.js';
import { loadCypher, type CypherCatalog } from './graph/cypher-catalog.js';
import { createSecretCache, type SecretCache } from './devices/secret-cache.js';
import { createIpIntel, type IpIntel } from './signals/ip/ip-intel.js';
import { createFetchedFeeds, intelCopiesDir, type FetchedFeeds } from './intel/fetched-feeds.js';
import { intelStatus } from './intel/intel-status.js';
import { createEmailSignals, type EmailSignals } from './signals/email/email-signals.js';
import { createMxChecker } from './signals/email/mx-checker.js';
import { createDomainAgeProvider } from './signals/email/domain-age-provider.js';
import { defaultPolicy, type Policy } from './engine/policy.js';
import { defaultRules } from './engine/rule-table.js';
import type { Rule } from './engine/rule.js';
import type PgBoss from 'pg-boss';
import { createBoss } from './jobs/job-queue.js';
import { createGraphOutbox, type GraphOutbox } from './graph/graph-outbox.js';
import { createGraphWriter, type GraphWriter } from './graph/graph-writer.js';
import { openGraphConnections, warmGraph } from './graph/warm-graph.js';
import { evaluate } from './engine/evaluate.js';
import { loadVelocityScript } from './velocity/velocity-store.js';
import { createPolicyRegistry, type PolicyRegistry } from './policies/documents/policy-registry.js';
import { createKeyDirectory, type KeyDirectory } from './tenants/key-directory.js';
import { createListDirectory, type ListDirectory } from './lists/list-directory.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { tracedGraphDriver } from './tracing/traced-graph-driver.js';
import { argon2Passwords, type Passwords } from './console/auth/passwords.js';
import { createVault, masterKeyOf, type Vault } from './vault/vault.js';
import { systemClock, type Clock } from './clock.js';

export interface Deps {
  config: Config;
  logger: Logger;
  db: pg.Pool;
  graph: Driver;
  // Analysts' own queries run here, on connections of their own (GRAPH_QUERY_POOL), never on
  // `graph`'s: nothing they do can take a connection a verdict or the graph writer needs.
  analystGraph: AnalystGraph;
  redis: Redis;
  // The job queue; started by serve/worker/migrate, usable for enqueueing (send) without start.
  boss: PgBoss;
  cypher: CypherCatalog;
  secrets: SecretCache;
  ipIntel: IpIntel;
  // The fetched public feeds held in memory (src/intel/): the ip lists ipIntel reads, the
  // disposable-email domains and the RDAP servers; reloaded with ipIntel.
  intelFeeds: FetchedFeeds;
  emailSignals: EmailSignals;
  engine: { rules: readonly Rule[]; policy: Policy };
  // The policy in force per scope (and its shadow), in memory; serve() keeps it current.
  policies: PolicyRegistry;
  // API keys and the tenants' lists, in memory while serve() keeps them current (otherwise each
  // lookup reads Postgres).
  keys: KeyDirectory;
  lists: ListDirectory;
  // This process's metrics, the one facade every room counts through (src/metrics/metrics.ts).
  metrics: Metrics;
  // The graph's door: every outbox row is written through it, and it wakes this process's writers.
  graphOutbox: GraphOutbox;
  // Applies the graph outbox to Neo4j; started by serve and worker (and the test run).
  graphWriter: GraphWriter;
  // Warms the process once (warmUp below); serve() starts it right after listening and holds
  // requests other than /health until it is done. One-shot CLI commands never call it.
  warmup(): Promise<void>;
  // 'cold' until warmup() is called (nothing is held back), 'warming', then 'warm'.
  warmState(): 'cold' | 'warming' | 'warm';
  clock: Clock;
  // Analysts' password hashing (argon2id).
  passwords: Passwords;
  // Seals and opens the secrets the service stores (src/vault/).
  vault: Vault;
  close(): Promise<void>;
}

export function createRedis(config: Config, logger: Logger): Redis {
  return createRedisClient(config.redisUrl, logger, config.redisCommandTimeoutMs);
}

export function createDeps(config: Config, overrides: Partial<Deps> = {}): Deps {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db = overrides.db ?? createPool(config);
  db.on('error', (err) => logger.warn({ err: err.message }, 'postgres idle client error'));
  const cypher = overrides.cypher ?? loadCypher();
  const driver = overrides.graph ?? createGraphDriver(config);
  // Spans per Cypher statement, only when traces are on (off: the driver as it is).
  const graph = config.otelEndpoint ? tracedGraphDriver(driver, cypher) : driver;
  const analystGraph = overrides.analystGraph ?? createAnalystGraph(config);
  const redis = overrides.redis ?? createRedis(config, logger);
  const boss = overrides.boss ?? createBoss(config.databaseDirectUrl, logger, config.jobMaintenanceSeconds);
  const clock = overrides.clock ?? systemClock;
  const intelFeeds =
    overrides.intelFeeds ?? createFetchedFeeds({ db, copies: intelCopiesDir(config.intelDir, config.databaseUrl), logger });
  const ipIntel = overrides.ipIntel ?? createIpIntel({ dir: config.intelDir, logger, extraSources: intelFeeds.ipSources() });
  const engine = overrides.engine ?? { rules: defaultRules, policy: defaultPolicy };
  // A scope without a published policy is judged by the engine's default policy.
  const policies = overrides.policies ?? createPolicyRegistry(db, engine.policy);
  const vault = overrides.vault ?? createVault(db, config.secretsKeys.map(masterKeyOf));
  let warming: Promise<void> | undefined;
  let warm = false;
  const graphOutbox = overrides.graphOutbox ?? createGraphOutbox(db);
  const graphWriter =
    overrides.graphWriter ??
    createGraphWriter(
      { config: { databaseUrl: config.databaseDirectUrl }, graph, cypher, logger, graphOutbox, clock },
      { expireEveryMs: config.graphExpirySweepMs },
    );
  const emailSignals =
    overrides.emailSignals ??
    createEmailSignals({
      mx: createMxChecker({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs, cacheTtlMs: 3_600_000, maxCacheEntries: 50_000 }),
      // RDAP_BASE_URL when set; otherwise each TLD's server from IANA's bootstrap registry.
      domainAge: createDomainAgeProvider({
        rdapBaseUrl: config.rdapBaseUrl,
        servers: () => intelFeeds.rdapServers(),
        timeoutMs: config.rdapTimeoutMs,
      }),
      fetchedDisposable: () => intelFeeds.disposableDomains(),
      now: () => clock.now(),
    });
  const deps: Deps = {
    config,
    logger,
    db,
    graph,
    analystGraph,
    redis,
    boss,
    cypher,
    secrets: overrides.secrets ?? createSecretCache(db, vault, logger),
    ipIntel,
    intelFeeds,
    emailSignals,
    engine,
    policies,
    keys: overrides.keys ?? createKeyDirectory(db),
    lists: overrides.lists ?? createListDirectory(db),
    metrics: overrides.metrics ?? createMetrics(),
    graphOutbox,
    graphWriter,
    warmup:
      overrides.warmup ??
      (() =>
        (warming ??= warmUp(deps).finally(() => {
          warm = true;
        }))),
    warmState: () => (warm ? 'warm' : warming ? 'warming' : 'cold'),
    clock,
    passwords: overrides.passwords ?? argon2Passwords,
    vault,
    async close() {
      await graphWriter.stop();
      // Lets a job in progress finish (bounded), as SIGTERM promises; a process that never
      // started the queue returns at once.
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 }).catch(() => undefined);
      await Promise.allSettled([db.end(), graph.close(), analystGraph.close(), redis.quit().catch(() => redis.disconnect())]);
    },
  };
  if (!overrides.metrics) deps.metrics.observe({ ...deps, intelStatus: () => intelStatus(deps) });
  return deps;
}

// Warms a process before it serves verdicts: in-process data (ip intelligence and the fetched
// feeds, device-token keys, the published policies, API keys and lists), connections opened
// (Postgres, Neo4j), the graph (src/graph/warm-graph.ts), the velocity script loaded into Redis,
// and the engine run until the JIT has compiled it. A cold start otherwise spends the first
// verdicts' signal budget on plans and page faults (timeout_failopen on a healthy, idle service).
// A step that fails is logged and the process serves anyway.
async function warmUp(deps: Deps): Promise<void> {
  const started = performance.now();
  const step = (name: string, work: Promise<unknown>) =>
    work.catch((err: Error) => deps.logger.warn({ step: name, err: err.message }, 'warm-up step failed; serving anyway'));
  const openConnections = async () => {
    await Promise.all(Array.from({ length: Math.min(deps.config.pgPoolMax, 4) }, () => deps.db.query('SELECT 1')));
    await openGraphConnections(deps.graph, 4);
  };
  await Promise.all([
    deps.ipIntel.reload().then(
      () => undefined,
      (err: Error) => deps.logger.error({ err: err.message, dir: deps.config.intelDir }, 'ip intelligence not loaded: ip signals off'),
    ),
    step('connections', openConnections()).then(() => step('graph', warmGraph(deps))),
    step('intel feeds', deps.intelFeeds.reload()),
    step('redis', loadVelocityScript(deps.redis)),
    step('device keys', deps.secrets.deviceKeys.reload()),
    step('keys and lists', Promise.all([deps.keys.whenLoaded(5_000), deps.lists.whenLoaded(5_000)])),
    deps.policies
      .load()
      .catch((err: Error) =>
        deps.logger.error({ err: err.message }, 'policies not loaded: the shipped default is in force until they are'),
      ),
  ]);
  // The engine run a few hundred times on made-up signals, so the JIT has compiled it before the
  // first verdict pays for that.
  for (let i = 0; i < 500; i++) {
    const velocity = { ipSignups: i % 30, cardAttempts: i % 9 };
    evaluate({ eventType: i % 2 ? 'signup' : 'checkout_attempt', velocity, missing: [] }, deps.engine.rules, deps.engine.policy);
  }
  deps.logger.info({ ms: Math.round(performance.now() - started) }, 'warmed up');
}
