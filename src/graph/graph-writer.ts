// The graph writer: applies the outbox (graph_outbox) to Neo4j after commit, in seq order, in
// batches, with exactly one writer per lane at a time across the fleet. It runs in every `serve`
// process and in `doorman worker`, and composes three parts, one per concern:
// - lane-ownership.ts: the lanes it owns, through advisory locks on its own Postgres session (a
//   process that dies releases its lanes at once and another takes them), each taken with a
//   raised epoch; a lane whose batch fails (Neo4j down) is released and retried with backoff, so
//   a process that cannot reach Neo4j never holds back one that can. Every wait there is bounded.
// - apply-batch.ts: a lane's next batch, applied under the lane's fence in Neo4j, so a writer that
//   lost its lane cannot write behind the next owner; a batch that keeps failing is split.
// - poison-rows.ts: a single row that still fails is set aside, so it cannot stall its lane.
// Here: draining the lanes it owns, woken at once by a commit in this process (poke) or in another
// (NOTIFY), polling as a safety net; links whose time ran out; the stats and their report; and
// stop's bounded flush.
import type { Logger } from 'pino';
import type { Driver } from 'neo4j-driver';
import type { Config } from '../config.js';
import type { CypherCatalog } from './cypher-catalog.js';
import { createBatchApply } from './apply-batch.js';
import { expiredScopes, expireLinks, StaleLaneError } from './apply-graph-ops.js';
import { lanesWithWork } from './graph-outbox-store.js';
import type { GraphOutbox } from './graph-outbox.js';
import { createLaneOwnership } from './lane-ownership.js';
import { ownScopeLanes } from './lane-store.js';
import { createPoisonRows } from './poison-rows.js';

// Raises a lane's epoch past a fence, from the session that holds the lane (lane-store.ts).
export { passLaneFence } from './lane-store.js';

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
  config: Pick<Config, 'databaseUrl'>;
  graph: Driver;
  cypher: CypherCatalog;
  logger: Logger;
  graphOutbox: Pick<GraphOutbox, 'register'>;
  // Link expiry is measured against this clock (tests and the quality bench move it).
  clock?: { now(): Date };
};

export function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function createGraphWriter(deps: WriterDeps, options: GraphWriterOptions = {}): GraphWriter {
  const batchSize = options.batchSize ?? 200;
  const lingerMs = options.lingerMs ?? 20;
  const applyTimeoutMs = options.applyTimeoutMs ?? 30_000;
  const acquireEveryMs = options.acquireEveryMs ?? 1000;
  const log = deps.logger.child({ component: 'graph-writer' });
  let stopping = false;
  const draining = new Map<number, Promise<void>>();
  const dirty = new Set<number>();
  // Per lane: scopes with links due to expire, handled at the start of the lane's next drain.
  const expiring = new Map<number, { tenantId: string; mode: string }[]>();
  const now = () => (deps.clock ?? { now: () => new Date() }).now().getTime();
  const timers: NodeJS.Timeout[] = [];
  // Applied rows and their lags; the rows set aside are counted by the parts that set them aside.
  const stats = { applied: 0, lagMs: [] as number[] };
  let reported = 0;
  let unregister: (() => void) | undefined;
  const own = createLaneOwnership(
    { databaseUrl: deps.config.databaseUrl, log },
    {
      sessionQueryTimeoutMs: options.sessionQueryTimeoutMs ?? 10_000,
      sessionIdleTimeoutMs: options.sessionIdleTimeoutMs ?? Math.max(15_000, acquireEveryMs * 10),
    },
    {
      stopping: () => stopping,
      woken(lanes) {
        if (lanes.length === 0) pokeAll();
        else for (const lane of lanes) schedule(lane);
      },
      taken: (lane) => schedule(lane),
    },
  );
  const { onSession } = own;
  const poison = createPoisonRows({ log, onSession });
  const batches = createBatchApply(
    { graph: deps.graph, cypher: deps.cypher, log, onSession, poison, passed: own.passed },
    { batchSize, applyTimeoutMs },
  );

  // Expiry, in the lane's order: between batches, under the lane's fence; with it, the scope's
  // unfinished splits in steps (split-in-steps.ts).
  async function expireDue(lane: number) {
    const scopes = expiring.get(lane);
    if (!scopes) return;
    expiring.delete(lane);
    const epoch = own.epochOf(lane);
    if (epoch === undefined) return;
    for (const scope of scopes) {
      try {
        const expired = await expireLinks(deps.graph, deps.cypher, scope, now(), applyTimeoutMs, own.fenceOf(lane, epoch));
        if (expired > 0) {
          log.info({ lane, tenant_id: scope.tenantId, mode: scope.mode, expired }, 'graph writer expired links and split their clusters');
        }
      } catch (err) {
        log.warn({ lane, err: String(err).split('\n')[0] }, 'graph writer could not expire links; will retry');
      }
    }
  }

  async function findExpiring() {
    const client = own.session();
    if (stopping || !client || own.lanes().size === 0) return;
    try {
      const scopes = await expiredScopes(deps.graph, deps.cypher, now());
      if (scopes.length === 0) return;
      // Only this database's tenants: several databases may share one Neo4j (lane fences, 0022).
      for (const s of await onSession(client, (c) => ownScopeLanes(c, scopes))) {
        if (!own.owns(s.lane)) continue;
        expiring.set(s.lane, [...(expiring.get(s.lane) ?? []), { tenantId: s.tenantId, mode: s.mode }]);
        schedule(s.lane);
      }
    } catch (err) {
      log.warn({ err: String(err).split('\n')[0] }, 'graph writer could not look for expired links');
    }
  }

  async function drain(lane: number) {
    await expireDue(lane);
    for (;;) {
      const client = own.session();
      if (stopping || !own.owns(lane) || !client) return;
      const epoch = own.epochOf(lane);
      if (epoch === undefined) return;
      const step = await batches.next(client, lane, own.fenceOf(lane, epoch));
      if (step.kind === 'empty') return;
      if (step.kind === 'again') continue;
      if (step.kind === 'failed') {
        // The lane's fence is past this batch's epoch: its holder moves past it and goes on, a
        // writer that lost the lane stops writing it. Anything else: released, retried later.
        if (step.err instanceof StaleLaneError) {
          if (await own.passFence(client, lane, epoch, step.err.seen)) continue;
          return;
        }
        await own.release(lane, step.err);
        return;
      }
      stats.applied += step.lags.length;
      stats.lagMs.push(...step.lags);
      if (stats.lagMs.length > LAG_SAMPLES) stats.lagMs.splice(0, stats.lagMs.length - LAG_SAMPLES);
      // A short batch was all the lane held when it was read; what committed since has woken
      // the lane again (poke, NOTIFY, or the poll), so no empty read is needed to find out.
      if (step.read < batchSize) return;
    }
  }

  function schedule(lane: number) {
    if (stopping || !own.owns(lane)) return;
    if (draining.has(lane)) {
      dirty.add(lane);
      return;
    }
    // Lingering only while running: a stopping writer flushes at once.
    const linger = lingerMs > 0 && unregister ? new Promise((resolve) => setTimeout(resolve, lingerMs)) : Promise.resolve();
    const run = linger
      .then(() => drain(lane))
      .catch((err: unknown) => log.warn({ lane, err: String(err) }, 'graph writer: Postgres error while draining'))
      .finally(() => {
        draining.delete(lane);
        if (dirty.delete(lane)) schedule(lane);
      });
    draining.set(lane, run);
  }

  function pokeAll() {
    for (const lane of own.lanes()) schedule(lane);
  }

  async function pollForWork() {
    const client = own.session();
    if (stopping || !client || own.lanes().size === 0) return;
    try {
      for (const lane of await onSession(client, (c) => lanesWithWork(c, [...own.lanes()]))) schedule(lane);
    } catch {
      // the session's error handler reports a lost connection
    }
  }

  function report() {
    if (stats.applied === reported) return;
    const sorted = [...stats.lagMs].sort((a, b) => a - b);
    const lags = { lag_p50_ms: percentile(sorted, 50), lag_p99_ms: percentile(sorted, 99) };
    log.info({ applied: stats.applied - reported, lanes: own.lanes().size, ...lags }, 'graph writer applied links');
    reported = stats.applied;
  }

  // Waits for the lanes' drains until none is left or the time is up.
  async function settle(waitMs: number) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...draining.values()]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  // Flush: apply what this process's lanes still hold (the links of the verdicts it just
  // answered among them) before letting the lanes go, bounded; a lane whose batch fails is
  // released at once and left to the next owner.
  async function flush(deadline: number) {
    while (Date.now() < deadline && own.session() && own.lanes().size > 0) {
      await settle(Math.max(0, deadline - Date.now()));
      const client = own.session();
      const left = client ? await onSession(client, (c) => lanesWithWork(c, [...own.lanes()])).catch(() => []) : [];
      if (left.length === 0) break;
      for (const lane of left) schedule(lane);
      if (draining.size === 0) break;
    }
  }

  const writer: GraphWriter = {
    async start() {
      stopping = false;
      unregister ??= deps.graphOutbox.register(writer);
      await own.acquire();
      timers.push(
        setInterval(() => void own.acquire(), acquireEveryMs),
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
      const deadline = Date.now() + 10_000;
      await flush(deadline);
      stopping = true;
      await settle(Math.max(1000, deadline - Date.now()));
      report();
      await own.close();
    },
    stats: () => ({
      lanes: own.lanes().size,
      applied: stats.applied,
      failed: batches.setAside() + poison.setAside(),
      lagMs: [...stats.lagMs],
    }),
    ownedLanes: () => own.lanes(),
  };
  return writer;
}
