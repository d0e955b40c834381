// The graph writer: applies the outbox (graph_outbox) to Neo4j after commit, in seq order, in
// batches, with exactly one writer per lane at a time across the fleet. It runs in every `serve`
// process and in `doorman worker`. A lane is owned through a Postgres advisory lock held on the
// writer's own session: a process that dies releases its lanes at once and another takes them.
// It is woken at once by a commit in this process (poke) or in another (NOTIFY), and polls as a
// safety net. A lane whose batch fails (Neo4j down) is released and retried with backoff, so a
// process that cannot reach Neo4j never holds back one that can.
import pg from 'pg';
import type { Logger } from 'pino';
import type { Driver } from 'neo4j-driver';
import type { Config } from '../config.js';
import type { CypherCatalog } from './cypher-catalog.js';
import { applyGraphOps, isInvalidOp } from './apply-graph-ops.js';
import { deleteApplied, lanesWithWork, markFailed, nextBatch, type OutboxRow } from './graph-outbox-store.js';

export const LANES = 16;
const LOCK_CLASS = 0x67726170; // 'grap': the advisory-lock namespace of the lanes
const CHANNEL = 'doorman_graph_outbox';
const LAG_SAMPLES = 10_000;

export interface GraphWriterOptions {
  batchSize?: number;
  idlePollMs?: number;
  // A woken lane waits this long before it reads its batch, so the commits of that moment are
  // applied in one Neo4j transaction instead of one each (0 applies at once).
  lingerMs?: number;
  acquireEveryMs?: number;
  applyTimeoutMs?: number;
  reportEveryMs?: number;
}

export interface GraphWriterStats {
  lanes: number;
  applied: number;
  failed: number;
  // The most recent link lags (insert to applied), ms.
  lagMs: number[];
}

export interface GraphWriter {
  start(): Promise<void>;
  poke(): void;
  // Applies what its lanes hold (bounded, 10 s), releases the lanes and closes the session.
  stop(): Promise<void>;
  stats(): GraphWriterStats;
  ownedLanes(): ReadonlySet<number>;
}

type WriterDeps = { config: Pick<Config, 'databaseUrl'>; graph: Driver; cypher: CypherCatalog; logger: Logger };

const running = new Set<GraphWriter>();

// Called after a commit that wrote to the outbox: wakes this process's writers, and the other
// processes' through NOTIFY unless this process owns every lane (a single instance never notifies).
export function wakeGraphWriters(db: Pick<pg.Pool, 'query'>): void {
  const owned = new Set<number>();
  for (const writer of running) {
    writer.poke();
    for (const lane of writer.ownedLanes()) owned.add(lane);
  }
  if (owned.size < LANES) db.query('SELECT pg_notify($1, $2)', [CHANNEL, '']).catch(() => undefined);
}

export function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function createGraphWriter(deps: WriterDeps, options: GraphWriterOptions = {}): GraphWriter {
  const batchSize = options.batchSize ?? 200;
  const lingerMs = options.lingerMs ?? 20;
  const applyTimeoutMs = options.applyTimeoutMs ?? 30_000;
  const log = deps.logger.child({ component: 'graph-writer' });
  let session: pg.Client | undefined;
  // The session runs one query at a time (lanes drain concurrently; pg queues no longer).
  let queue: Promise<unknown> = Promise.resolve();
  const onSession = <T>(client: pg.Client, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const run = queue.then(() => fn(client));
    queue = run.catch(() => undefined);
    return run;
  };
  let connecting: Promise<void> | undefined;
  let stopping = false;
  const owned = new Set<number>();
  const failures = new Map<number, number>();
  const retryAt = new Map<number, number>();
  const draining = new Map<number, Promise<void>>();
  const dirty = new Set<number>();
  const timers: NodeJS.Timeout[] = [];
  const stats = { applied: 0, failed: 0, lagMs: [] as number[] };
  let reported = 0;

  const connect = () => (connecting ??= (async () => {
    const client = new pg.Client({ connectionString: deps.config.databaseUrl });
    client.on('error', (err) => lost(client, err));
    client.on('notification', () => pokeAll());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      session = client;
    } catch (err) {
      log.warn({ err: String(err) }, 'graph writer cannot reach Postgres; retrying');
      void client.end().catch(() => undefined);
    } finally {
      connecting = undefined;
    }
  })());

  // The advisory locks went with the session: this process owns no lane until it reconnects.
  function lost(client: pg.Client, err: Error) {
    if (session !== client) return;
    log.warn({ err: err.message, lanes: owned.size }, 'graph writer lost its Postgres session; lanes released');
    session = undefined;
    owned.clear();
    void client.end().catch(() => undefined);
  }

  async function acquire() {
    if (stopping) return;
    if (!session) await connect();
    const client = session;
    if (!client) return;
    const now = Date.now();
    const wanted = Array.from({ length: LANES }, (_, lane) => lane).filter((lane) => !owned.has(lane) && (retryAt.get(lane) ?? 0) <= now);
    if (wanted.length === 0) return;
    try {
      const { rows } = await onSession(client, (c) => c.query<{ lane: number }>(
        'SELECT l AS lane FROM unnest($1::int[]) AS l WHERE pg_try_advisory_lock($2, l)',
        [wanted, LOCK_CLASS],
      ));
      for (const { lane } of rows) {
        owned.add(lane);
        schedule(lane);
      }
    } catch (err) {
      log.warn({ err: String(err) }, 'graph writer could not take lanes');
    }
  }

  async function release(lane: number, err: unknown) {
    const n = (failures.get(lane) ?? 0) + 1;
    failures.set(lane, n);
    const waitMs = Math.min(30_000, 250 * 2 ** (n - 1));
    retryAt.set(lane, Date.now() + waitMs);
    owned.delete(lane);
    log.warn({ lane, err: String(err).split('\n')[0], retry_in_ms: waitMs }, 'graph writer could not apply a batch; lane released');
    const client = session;
    if (client) await onSession(client, (c) => c.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, lane])).catch(() => undefined);
  }

  // Applies rows; a row Neo4j refuses as invalid is set aside, the others are applied.
  async function apply(client: pg.Client, rows: OutboxRow[]): Promise<OutboxRow[]> {
    try {
      await applyGraphOps(deps.graph, deps.cypher, rows, applyTimeoutMs);
      return rows;
    } catch (err) {
      if (!isInvalidOp(err)) throw err;
    }
    const applied: OutboxRow[] = [];
    for (const row of rows) {
      try {
        await applyGraphOps(deps.graph, deps.cypher, [row], applyTimeoutMs);
        applied.push(row);
      } catch (err) {
        if (!isInvalidOp(err)) throw err;
        stats.failed += 1;
        log.error({ seq: row.seq, kind: row.kind, err: String(err) }, 'graph writer set aside an outbox row Neo4j refused');
        await onSession(client, (c) => markFailed(c, row.seq, String(err)));
      }
    }
    return applied;
  }

  async function drain(lane: number) {
    while (!stopping && owned.has(lane) && session) {
      const client = session;
      const rows = await onSession(client, (c) => nextBatch(c, lane, batchSize));
      if (rows.length === 0) return;
      let applied: OutboxRow[];
      try {
        applied = await apply(client, rows);
      } catch (err) {
        await release(lane, err);
        return;
      }
      failures.delete(lane);
      if (applied.length === 0) continue;
      const lags = await onSession(client, (c) => deleteApplied(c, applied.map((r) => r.seq)));
      stats.applied += lags.length;
      stats.lagMs.push(...lags);
      if (stats.lagMs.length > LAG_SAMPLES) stats.lagMs.splice(0, stats.lagMs.length - LAG_SAMPLES);
      // A short batch was all the lane held when it was read; what committed since has woken
      // the lane again (poke, NOTIFY, or the poll), so no empty read is needed to find out.
      if (rows.length < batchSize) return;
    }
  }

  function schedule(lane: number) {
    if (stopping || !owned.has(lane)) return;
    if (draining.has(lane)) {
      dirty.add(lane);
      return;
    }
    // Lingering only while running: a stopping writer flushes at once.
    const linger = lingerMs > 0 && running.has(writer) ? new Promise((resolve) => setTimeout(resolve, lingerMs)) : Promise.resolve();
    const run = linger.then(() => drain(lane))
      .catch((err: unknown) => log.warn({ lane, err: String(err) }, 'graph writer: Postgres error while draining'))
      .finally(() => {
        draining.delete(lane);
        if (dirty.delete(lane)) schedule(lane);
      });
    draining.set(lane, run);
  }

  function pokeAll() {
    for (const lane of owned) schedule(lane);
  }

  async function pollForWork() {
    const client = session;
    if (stopping || !client || owned.size === 0) return;
    try {
      for (const lane of await onSession(client, (c) => lanesWithWork(c, [...owned]))) schedule(lane);
    } catch {
      // the session's error handler reports a lost connection
    }
  }

  function report() {
    if (stats.applied === reported) return;
    const sorted = [...stats.lagMs].sort((a, b) => a - b);
    log.info({ applied: stats.applied - reported, lanes: owned.size, lag_p50_ms: percentile(sorted, 50), lag_p99_ms: percentile(sorted, 99) }, 'graph writer applied links');
    reported = stats.applied;
  }

  const writer: GraphWriter = {
    async start() {
      stopping = false;
      running.add(writer);
      await acquire();
      timers.push(
        setInterval(() => void acquire(), options.acquireEveryMs ?? 1000),
        setInterval(() => void pollForWork(), options.idlePollMs ?? 500),
        setInterval(report, options.reportEveryMs ?? 30_000),
      );
      for (const t of timers) t.unref();
    },
    poke: pokeAll,
    async stop() {
      if (!running.has(writer)) return;
      running.delete(writer);
      for (const t of timers.splice(0)) clearInterval(t);
      // Flush: apply what this process's lanes still hold (the links of the verdicts it just
      // answered among them) before letting the lanes go, bounded; a lane whose batch fails is
      // released at once and left to the next owner.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && session && owned.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...draining.values()]),
          new Promise((resolve) => { timer = setTimeout(resolve, Math.max(0, deadline - Date.now())); }),
        ]);
        clearTimeout(timer);
        const client = session;
        const left = client ? await onSession(client, (c) => lanesWithWork(c, [...owned])).catch(() => []) : [];
        if (left.length === 0) break;
        for (const lane of left) schedule(lane);
        if (draining.size === 0) break;
      }
      stopping = true;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...draining.values()]),
        new Promise((resolve) => { timer = setTimeout(resolve, Math.max(1000, deadline - Date.now())); }),
      ]);
      clearTimeout(timer);
      report();
      owned.clear();
      const client = session;
      session = undefined;
      // Ending the session releases its advisory locks.
      await client?.end().catch(() => undefined);
    },
    stats: () => ({ lanes: owned.size, applied: stats.applied, failed: stats.failed, lagMs: [...stats.lagMs] }),
    ownedLanes: () => owned,
  };
  return writer;
}
