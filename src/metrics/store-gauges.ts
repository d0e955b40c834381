// Gauges read at scrape time: the graph outbox and webhook deliveries (fleet-wide, the same on
// every instance: use max() across instances), this process's graph writer (lanes, links applied
// and their lag), and its pools (Postgres, Neo4j, Redis). Queries run once per scrape, bounded.
import type pg from 'pg';
import type { Driver } from 'neo4j-driver';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { GraphWriter } from '../graph/graph-writer.js';
import type { RedisClient } from '../redis/redis-client.js';

export interface ObservedStores {
  db: pg.Pool;
  graph: Driver;
  redis: RedisClient;
  graphWriter: GraphWriter;
  // The public feeds' state (src/intel/intel-status.ts), fleet-wide.
  intelStatus(): Promise<{ sources: { name: string; age_seconds: number | null; entries: number; stale: boolean }[] }>;
}

const QUERY_TIMEOUT_MS = 2000;

interface StoreFacts {
  outbox: { waiting: number; failed: number; oldest: number };
  deliveries: { status: string; n: number; oldest: number }[];
}

async function readFacts(db: pg.Pool): Promise<StoreFacts> {
  const [outbox, deliveries] = await Promise.all([
    db.query<StoreFacts['outbox']>({
      text: `SELECT count(*) FILTER (WHERE failed_at IS NULL)::int AS waiting, count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed,
               coalesce(extract(epoch FROM clock_timestamp() - min(created_at) FILTER (WHERE failed_at IS NULL)), 0)::float8 AS oldest
          FROM graph_outbox`,
      query_timeout: QUERY_TIMEOUT_MS,
    } as pg.QueryConfig),
    db.query<{ status: string; n: number; oldest: number }>({
      text: `SELECT status, count(*)::int AS n, coalesce(extract(epoch FROM clock_timestamp() - min(created_at)), 0)::float8 AS oldest
               FROM webhook_deliveries GROUP BY status`,
      query_timeout: QUERY_TIMEOUT_MS,
    } as pg.QueryConfig),
  ]);
  return { outbox: outbox.rows[0]!, deliveries: deliveries.rows };
}

// The driver keeps its pool internal; read it where it is (neo4j-driver 5/6) and report nothing
// if a driver version moves it.
function neo4jPool(graph: Driver): { server: string; inUse: number; idle: number }[] {
  const pool = (
    graph as unknown as {
      _connectionProvider?: { _connectionPool?: { _activeResourceCounts?: Record<string, number>; _pools?: Record<string, unknown[]> } };
    }
  )._connectionProvider?._connectionPool;
  if (!pool?._activeResourceCounts || !pool._pools) return [];
  const servers = new Set([...Object.keys(pool._activeResourceCounts), ...Object.keys(pool._pools)]);
  return [...servers].map((server) => ({
    server,
    inUse: pool._activeResourceCounts![server] ?? 0,
    idle: pool._pools![server]?.length ?? 0,
  }));
}

export function observeStores(registry: Registry, deps: ObservedStores, lagBuckets: number[]): void {
  const registers = [registry];
  // One read of the stores per scrape, shared by the gauges that need it.
  let facts: { at: number; value: Promise<StoreFacts | undefined> } | undefined;
  const storeFacts = () => {
    if (!facts || Date.now() - facts.at > 1000) facts = { at: Date.now(), value: readFacts(deps.db).catch(() => undefined) };
    return facts.value;
  };
  fleetGauges(registers, storeFacts);
  intelGauges(registers, deps.intelStatus);
  writerMetrics(registers, deps.graphWriter, lagBuckets);
  connectionGauges(registers, deps);
}

// What the fleet shares, read from Postgres: the graph outbox and the webhook deliveries.
function fleetGauges(registers: Registry[], storeFacts: () => Promise<StoreFacts | undefined>): void {
  new Gauge({
    name: 'doorman_graph_outbox_depth',
    help: 'Graph outbox rows waiting to be applied (fleet-wide)',
    registers,
    async collect() {
      const f = await storeFacts();
      if (f) this.set(f.outbox.waiting);
    },
  });
  new Gauge({
    name: 'doorman_graph_outbox_failed',
    help: 'Graph outbox rows Neo4j refused and that were set aside (fleet-wide)',
    registers,
    async collect() {
      const f = await storeFacts();
      if (f) this.set(f.outbox.failed);
    },
  });
  new Gauge({
    name: 'doorman_graph_outbox_oldest_seconds',
    help: 'Age of the oldest waiting outbox row: the link lag right now (fleet-wide)',
    registers,
    async collect() {
      const f = await storeFacts();
      if (f) this.set(f.outbox.oldest);
    },
  });
  new Gauge({
    name: 'doorman_webhook_deliveries',
    help: 'Webhook deliveries by state (pending | delivered | failed), fleet-wide',
    labelNames: ['state'],
    registers,
    async collect() {
      const f = await storeFacts();
      if (!f) return;
      for (const state of ['pending', 'delivered', 'failed']) this.set({ state }, f.deliveries.find((d) => d.status === state)?.n ?? 0);
    },
  });
  new Gauge({
    name: 'doorman_webhook_oldest_pending_seconds',
    help: 'Age of the oldest pending webhook delivery (fleet-wide)',
    registers,
    async collect() {
      const f = await storeFacts();
      if (f) this.set(f.deliveries.find((d) => d.status === 'pending')?.oldest ?? 0);
    },
  });
}

function writerMetrics(registers: Registry[], graphWriter: ObservedStores['graphWriter'], lagBuckets: number[]): void {
  // This process's graph writer: links applied since the last look feed the counter and the lag
  // histogram (whichever of the three the scrape reads first pulls them).
  let seen = graphWriter.stats().applied;
  const pull = () => {
    const stats = graphWriter.stats();
    const fresh = Math.max(0, stats.applied - seen);
    seen = stats.applied;
    if (fresh > 0) {
      for (const ms of stats.lagMs.slice(-Math.min(fresh, stats.lagMs.length))) linkLag.observe(ms / 1000);
      applied.inc(fresh);
    }
    return stats;
  };
  const applied = new Counter({
    name: 'doorman_graph_links_applied_total',
    help: 'Outbox rows applied to Neo4j by this process',
    registers,
    collect: () => void pull(),
  });
  const linkLag = new Histogram({
    name: 'doorman_graph_link_lag_seconds',
    help: 'From an outbox row committed to applied in Neo4j by this process',
    buckets: lagBuckets,
    registers,
    collect: () => void pull(),
  });
  new Gauge({
    name: 'doorman_graph_writer_lanes',
    help: 'Outbox lanes this process applies (16 across the fleet)',
    registers,
    collect() {
      this.set(pull().lanes);
    },
  });
}

// This process's connections: its Postgres pool, its Neo4j driver, its Redis client.
function connectionGauges(registers: Registry[], deps: Pick<ObservedStores, 'db' | 'graph' | 'redis'>): void {
  new Gauge({
    name: 'doorman_postgres_pool_connections',
    help: 'Postgres pool connections of this process, by state (total | idle | waiting: requests queued for one)',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'total' }, deps.db.totalCount);
      this.set({ state: 'idle' }, deps.db.idleCount);
      this.set({ state: 'waiting' }, deps.db.waitingCount);
    },
  });
  new Gauge({
    name: 'doorman_neo4j_pool_connections',
    help: 'Neo4j driver connections of this process, by server and state (in_use | idle)',
    labelNames: ['server', 'state'],
    registers,
    collect() {
      this.reset();
      for (const p of neo4jPool(deps.graph)) {
        this.set({ server: p.server, state: 'in_use' }, p.inUse);
        this.set({ server: p.server, state: 'idle' }, p.idle);
      }
    },
  });
  new Gauge({
    name: 'doorman_redis_connected',
    help: "1 while this process's Redis client is ready (a Cluster client: connected to the cluster)",
    registers,
    collect() {
      this.set(deps.redis.status === 'ready' ? 1 : 0);
    },
  });
}

// The public feeds (fleet-wide): how old each one's data is, how many entries it holds, and
// whether it is stale (never fetched, or older than twice its interval). One read per scrape.
function intelGauges(registers: Registry[], intelStatus: ObservedStores['intelStatus']): void {
  type Status = Awaited<ReturnType<ObservedStores['intelStatus']>>;
  let read: { at: number; value: Promise<Status | undefined> } | undefined;
  const status = () => {
    if (!read || Date.now() - read.at > 1000) read = { at: Date.now(), value: intelStatus().catch(() => undefined) };
    return read.value;
  };
  const perSource = (
    name: string,
    help: string,
    value: (s: { age_seconds: number | null; entries: number; stale: boolean }) => number | null,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['source'],
      registers,
      async collect() {
        const current = await status();
        if (!current) return;
        this.reset();
        for (const source of current.sources) {
          const v = value(source);
          if (v !== null) this.set({ source: source.name }, v);
        }
      },
    });
  perSource('doorman_intel_age_seconds', 'Seconds since an intel feed last answered well (absent: never)', (s) => s.age_seconds);
  perSource('doorman_intel_entries', "Entries in an intel feed's data in use", (s) => s.entries);
  perSource('doorman_intel_stale', 'An intel feed never fetched or older than twice its interval (1), else 0', (s) => (s.stale ? 1 : 0));
}
