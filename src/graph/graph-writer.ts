// The graph writer: applies the outbox (graph_outbox) to Neo4j after commit, in seq order, in
// batches, with exactly one writer per lane at a time across the fleet. It runs in every `serve`
// process and in `doorman worker`. A lane is owned through a Postgres advisory lock held on the
// writer's own session: a process that dies releases its lanes at once and another takes them.
// It is woken at once by a commit in this process (poke) or in another (NOTIFY), and polls as a
// safety net. A lane whose batch fails (Neo4j down) is released and retried with backoff, so a
// process that cannot reach Neo4j never holds back one that can.
// Fenced (issue 20): taking a lane raises its epoch (graph_lane_epochs), and every batch passes
// the lane's fence in Neo4j first, so a writer that lost its lane cannot write behind the next
// owner. Every wait is bounded: the session's queries time out, Postgres ends the session if it
// goes silent (so its advisory locks are freed even when the network only stalls), and a lane
// takes its locks once however often acquiring overlaps. A batch that keeps failing is split, and
// a single row that still fails is set aside, so one poison row cannot stall its lane.
import pg from 'pg';
import type { Logger } from 'pino';
import type { Driver } from 'neo4j-driver';
import type { Config } from '../config.js';
import type { CypherCatalog } from './cypher-catalog.js';
import { applyGraphOps, expiredScopes, expireLinks, isInvalidOp, StaleLaneError, type LaneFence } from './apply-graph-ops.js';
import { deleteApplied, lanesWithWork, markFailed, nextBatch, type OutboxRow } from './graph-outbox-store.js';
import { LANES, OUTBOX_CHANNEL as CHANNEL, type GraphOutbox } from './graph-outbox.js';

const LOCK_CLASS = 0x67726170; // 'grap': the advisory-lock namespace of the lanes
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
  // A query on the writer's session unanswered this long means the session is lost.
  sessionQueryTimeoutMs?: number;
  // Postgres ends the session after this long without a query from it (a stalled network),
  // which frees its lanes; the writer queries at least every acquireEveryMs.
  sessionIdleTimeoutMs?: number;
  // How often links whose time ran out are looked for (and their clusters split).
  expireEveryMs?: number;
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
  // Wakes one lane (when this process owns it), or all it owns.
  poke(lane?: number): void;
  // Applies what its lanes hold (bounded, 10 s), releases the lanes and closes the session.
  stop(): Promise<void>;
  stats(): GraphWriterStats;
  ownedLanes(): ReadonlySet<number>;
}

// The outbox this process writes through, which wakes the writers registered with it.
type WriterDeps = {
  config: Pick<Config, 'databaseUrl'>; graph: Driver; cypher: CypherCatalog; logger: Logger; graphOutbox: Pick<GraphOutbox, 'register'>;
  // Link expiry is measured against this clock (tests and the quality bench move it).
  clock?: { now(): Date };
};

export function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// Consecutive failures of one row, alone, before it is set aside (an outage never counts).
const POISON_FAILURES = 5;
const isOutage = (err: unknown): boolean => {
  const code = (err as { code?: string }).code ?? '';
  return code === 'ServiceUnavailable' || code === 'SessionExpired' || /ECONNREFUSED|ECONNRESET|connect|closed/i.test(String((err as Error).message ?? err));
};
// An error with a SQLSTATE is Postgres answering; anything else on the session (a timeout, a
// reset, an end) means the session is gone.
const sessionBroken = (err: unknown): boolean => typeof (err as { code?: unknown }).code !== 'string' || !/^[0-9A-Z]{5}$/.test((err as { code: string }).code);

// Raises a lane's epoch past the fence `seen`, only from the session that holds the lane's lock
// (so a writer that lost the lane cannot); undefined when that session does not hold it.
export async function passLaneFence(c: pg.ClientBase, lane: number, seen: number): Promise<number | undefined> {
  if (!Number.isFinite(seen)) return undefined;
  const { rows } = await c.query<{ epoch: string }>(
    `UPDATE graph_lane_epochs SET epoch = GREATEST(epoch, $3::bigint) + 1
      WHERE lane = $2 AND EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
                                    AND granted AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 2)
      RETURNING epoch`,
    [LOCK_CLASS, lane, seen],
  );
  return rows[0] ? Number(rows[0].epoch) : undefined;
}

export function createGraphWriter(deps: WriterDeps, options: GraphWriterOptions = {}): GraphWriter {
  const batchSize = options.batchSize ?? 200;
  const lingerMs = options.lingerMs ?? 20;
  const applyTimeoutMs = options.applyTimeoutMs ?? 30_000;
  const acquireEveryMs = options.acquireEveryMs ?? 1000;
  const sessionQueryTimeoutMs = options.sessionQueryTimeoutMs ?? 10_000;
  const sessionIdleTimeoutMs = options.sessionIdleTimeoutMs ?? Math.max(15_000, acquireEveryMs * 10);
  const log = deps.logger.child({ component: 'graph-writer' });
  let session: pg.Client | undefined;
  // The session runs one query at a time (lanes drain concurrently; pg queues no longer).
  let queue: Promise<unknown> = Promise.resolve();
  const onSession = <T>(client: pg.Client, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const run = queue.then(() => fn(client));
    queue = run.catch(() => undefined);
    // A query that timed out or lost its connection: the session, its locks and lanes are gone.
    run.catch((err: unknown) => {
      if (sessionBroken(err)) lost(client, err instanceof Error ? err : new Error(String(err)));
    });
    return run;
  };
  let acquiring: Promise<void> | undefined;
  // The epoch this process holds for each lane it owns (graph_lane_epochs), and the key of each
  // lane's fence node (fixed per lane and database).
  const epochs = new Map<number, number>();
  const fenceKeys = new Map<number, string>();
  const fenceOf = (lane: number, epoch: number): LaneFence => ({ lane, epoch, key: fenceKeys.get(lane)! });
  // Per lane: the batch size in use (halved after a failure) and the current row's failures.
  const batchLimit = new Map<number, number>();
  const rowFailures = new Map<string, number>();
  let connecting: Promise<void> | undefined;
  let stopping = false;
  const owned = new Set<number>();
  const failures = new Map<number, number>();
  const retryAt = new Map<number, number>();
  const draining = new Map<number, Promise<void>>();
  const dirty = new Set<number>();
  // Per lane: scopes with links due to expire, handled at the start of the lane's next drain.
  const expiring = new Map<number, { tenantId: string; mode: string }[]>();
  const now = () => (deps.clock ?? { now: () => new Date() }).now().getTime();
  const timers: NodeJS.Timeout[] = [];
  const stats = { applied: 0, failed: 0, lagMs: [] as number[] };
  let reported = 0;
  let unregister: (() => void) | undefined;

  const connect = () => (connecting ??= (async () => {
    const client = new pg.Client({
      connectionString: deps.config.databaseUrl,
      application_name: 'doorman-graph-writer',
      connectionTimeoutMillis: sessionQueryTimeoutMs,
      query_timeout: sessionQueryTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
    });
    client.on('error', (err) => lost(client, err));
    // The payload names the lanes that gained rows ('3,7'); empty: any lane may have.
    client.on('notification', (msg) => {
      const lanes = (msg.payload ?? '').split(',').filter(Boolean).map(Number).filter((l) => Number.isInteger(l));
      if (lanes.length === 0) pokeAll();
      else for (const lane of lanes) schedule(lane);
    });
    try {
      await client.connect();
      // Postgres ends this session when it goes silent (the writer queries every second), and
      // probes a quiet peer's socket: either way its advisory locks are freed within seconds,
      // not after the operating system's two-hour keepalive.
      await client.query(`SET idle_session_timeout = ${Math.round(sessionIdleTimeoutMs)}`);
      await client.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3');
      await client.query(`SET statement_timeout = ${Math.round(sessionQueryTimeoutMs)}`);
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
    epochs.clear();
    void client.end().catch(() => undefined);
  }

  // One acquiring at a time: overlapping runs would take a lane's lock twice (advisory locks
  // stack within a session), and one unlock would then leave it held.
  const acquire = () => (acquiring ??= takeLanes().finally(() => {
    acquiring = undefined;
  }));

  async function takeLanes() {
    if (stopping) return;
    if (!session) await connect();
    const client = session;
    if (!client) return;
    const now = Date.now();
    const wanted = Array.from({ length: LANES }, (_, lane) => lane).filter((lane) => !owned.has(lane) && (retryAt.get(lane) ?? 0) <= now);
    try {
      if (wanted.length === 0) {
        // The heartbeat: a session that no longer answers is found lost within a query timeout.
        await onSession(client, (c) => c.query('SELECT 1'));
        return;
      }
      // Taking a lane raises its epoch, in the same statement: this process's batches carry it.
      const { rows } = await onSession(client, (c) => c.query<{ lane: number; epoch: string; fence_key: string }>(
        `WITH taken AS MATERIALIZED (SELECT l FROM unnest($1::int[]) AS l WHERE pg_try_advisory_lock($2, l))
         UPDATE graph_lane_epochs e SET epoch = e.epoch + 1 FROM taken WHERE e.lane = taken.l
         RETURNING e.lane, e.epoch, e.fence_key`,
        [wanted, LOCK_CLASS],
      ));
      if (session !== client) return;
      for (const { lane, epoch, fence_key } of rows) {
        owned.add(lane);
        epochs.set(lane, Number(epoch));
        fenceKeys.set(lane, fence_key);
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
    epochs.delete(lane);
    log.warn({ lane, err: String(err).split('\n')[0], retry_in_ms: waitMs }, 'graph writer could not apply a batch; lane released');
    const client = session;
    // Unlocked until Postgres says it is not held: a lock taken twice is freed too.
    if (client) {
      await onSession(client, async (c) => {
        for (let i = 0; i < 8; i++) {
          const { rows } = await c.query<{ unlocked: boolean }>('SELECT pg_advisory_unlock($1, $2) AS unlocked', [LOCK_CLASS, lane]);
          if (!rows[0]?.unlocked) return;
        }
      }).catch(() => undefined);
    }
  }

  // Applies rows under the lane's fence; a row Neo4j refuses as invalid is set aside, the others
  // are applied.
  async function apply(client: pg.Client, rows: OutboxRow[], fence: LaneFence): Promise<OutboxRow[]> {
    try {
      await applyGraphOps(deps.graph, deps.cypher, rows, applyTimeoutMs, fence);
      return rows;
    } catch (err) {
      if (!isInvalidOp(err)) throw err;
    }
    const applied: OutboxRow[] = [];
    for (const row of rows) {
      try {
        await applyGraphOps(deps.graph, deps.cypher, [row], applyTimeoutMs, fence);
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

  // A single row that failed alone for a reason other than an outage: after POISON_FAILURES such
  // failures in a row it is set aside (true), so the lane goes on.
  async function failedAlone(client: pg.Client, lane: number, row: OutboxRow, err: unknown): Promise<boolean> {
    const n = (rowFailures.get(row.seq) ?? 0) + 1;
    rowFailures.set(row.seq, n);
    if (n < POISON_FAILURES) return false;
    rowFailures.delete(row.seq);
    stats.failed += 1;
    log.error({ seq: row.seq, kind: row.kind, lane, err: String(err).split('\n')[0] }, 'graph writer set aside an outbox row that failed alone 5 times');
    await onSession(client, (c) => markFailed(c, row.seq, String(err)));
    return true;
  }

  // Expiry, in the lane's order: between batches, under the lane's fence; with it, the scope's
  // unfinished splits in steps (split-in-steps.ts).
  async function expireDue(lane: number) {
    const scopes = expiring.get(lane);
    if (!scopes) return;
    expiring.delete(lane);
    const epoch = epochs.get(lane);
    if (epoch === undefined) return;
    for (const scope of scopes) {
      try {
        const expired = await expireLinks(deps.graph, deps.cypher, scope, now(), applyTimeoutMs, fenceOf(lane, epoch));
        if (expired > 0) log.info({ lane, tenant_id: scope.tenantId, mode: scope.mode, expired }, 'graph writer expired links and split their clusters');
      } catch (err) {
        log.warn({ lane, err: String(err).split('\n')[0] }, 'graph writer could not expire links; will retry');
      }
    }
  }

  async function findExpiring() {
    const client = session;
    if (stopping || !client || owned.size === 0) return;
    try {
      const scopes = await expiredScopes(deps.graph, deps.cypher, now());
      if (scopes.length === 0) return;
      // Only this database's tenants: several databases may share one Neo4j (lane fences, 0022).
      const { rows } = await onSession(client, (c) => c.query<{ t: string; m: string; lane: number }>(
        `SELECT t, m, hashtext(t || ':' || m) & 15 AS lane FROM unnest($1::text[], $2::text[]) AS s(t, m)
          WHERE EXISTS (SELECT 1 FROM tenants WHERE id = s.t)`,
        [scopes.map((x) => x.tenantId), scopes.map((x) => x.mode)],
      ));
      for (const r of rows) {
        if (!owned.has(r.lane)) continue;
        expiring.set(r.lane, [...(expiring.get(r.lane) ?? []), { tenantId: r.t, mode: r.m }]);
        schedule(r.lane);
      }
    } catch (err) {
      log.warn({ err: String(err).split('\n')[0] }, 'graph writer could not look for expired links');
    }
  }

  async function drain(lane: number) {
    await expireDue(lane);
    while (!stopping && owned.has(lane) && session) {
      const client = session;
      const epoch = epochs.get(lane);
      if (epoch === undefined) return;
      const rows = await onSession(client, (c) => nextBatch(c, lane, batchLimit.get(lane) ?? batchSize));
      if (rows.length === 0) return;
      let applied: OutboxRow[];
      try {
        applied = await apply(client, rows, fenceOf(lane, epoch));
      } catch (err) {
        if (err instanceof StaleLaneError) {
          // Still this process's lane (its session holds the lock): the fence is ahead because
          // Postgres's epochs fell behind the graph's (a restored backup). The holder moves past
          // the fence and goes on; no one else can hold the lane.
          const caughtUp = await onSession(client, (c) => passLaneFence(c, lane, err.seen)).catch(() => undefined);
          if (caughtUp !== undefined && session === client && owned.has(lane)) {
            log.info({ lane, epoch: caughtUp, fence: err.seen }, 'graph writer moved its lane past a fence set by an earlier epoch count');
            epochs.set(lane, caughtUp);
            continue;
          }
          // Another process owns the lane now: this one stops writing it at once.
          log.warn({ lane, epoch }, 'graph writer lost a lane to a newer owner; its batch was refused');
          owned.delete(lane);
          epochs.delete(lane);
          return;
        }
        if (!isOutage(err)) {
          // Not an outage: split the batch at once, down to the row that fails.
          if (rows.length > 1) {
            batchLimit.set(lane, Math.max(1, Math.floor(rows.length / 2)));
            continue;
          }
          if (await failedAlone(client, lane, rows[0]!, err).catch(() => false)) continue;
        }
        await release(lane, err);
        return;
      }
      failures.delete(lane);
      // Back to full batches, gradually, once a batch passes.
      const limit = batchLimit.get(lane);
      if (limit !== undefined) {
        if (limit * 2 >= batchSize) batchLimit.delete(lane);
        else batchLimit.set(lane, limit * 2);
      }
      for (const row of rows) rowFailures.delete(row.seq);
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
    const linger = lingerMs > 0 && unregister ? new Promise((resolve) => setTimeout(resolve, lingerMs)) : Promise.resolve();
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
      unregister ??= deps.graphOutbox.register(writer);
      await acquire();
      timers.push(
        setInterval(() => void acquire(), acquireEveryMs),
        setInterval(() => void pollForWork(), options.idlePollMs ?? 500),
        setInterval(report, options.reportEveryMs ?? 30_000),
        setInterval(() => void findExpiring(), options.expireEveryMs ?? 30_000),
      );
      for (const t of timers) t.unref();
    },
    poke: (lane) => (lane === undefined ? pokeAll() : schedule(lane)),
    async stop() {
      if (!unregister) return;
      unregister();
      unregister = undefined;
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
      epochs.clear();
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
