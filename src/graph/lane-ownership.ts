// Which lanes one graph writer owns, and the Postgres session it owns them on. A lane is owned
// through an advisory lock held on the writer's own session: a process that dies releases its
// lanes at once and another takes them. Fenced: taking a lane raises its epoch
// (graph_lane_epochs), and the writer's batches carry it, so a writer that lost its lane cannot
// write behind the next owner. Every wait is bounded: the session's queries time out, Postgres
// ends the session if it goes silent (so its advisory locks are freed even when the network only
// stalls), and a lane takes its locks once however often acquiring overlaps. A lane whose batch
// failed is released and retried with backoff, so a process that cannot reach Neo4j never holds
// back one that can. The writer learns of notifications and newly taken lanes by callbacks.
import pg from 'pg';
import type { Logger } from 'pino';
import type { LaneFence } from './apply-graph-ops.js';
import { LANES, OUTBOX_CHANNEL as CHANNEL } from './graph-outbox.js';
import { heartbeat, passLaneFence, setUpWriterSession, takeLanes, unlockLane } from './lane-store.js';

// Runs fn on the writer's session once the queries queued before it are done.
export type SessionRunner = <T>(client: pg.Client, fn: (c: pg.Client) => Promise<T>) => Promise<T>;

export interface LaneOwnershipOptions {
  // A query on the session unanswered this long means the session is lost.
  sessionQueryTimeoutMs: number;
  // Postgres ends the session after this long without a query from it (a stalled network),
  // which frees its lanes.
  sessionIdleTimeoutMs: number;
}

export interface LaneOwnershipHooks {
  // While true, no lane is taken.
  stopping(): boolean;
  // A notification named these lanes as having gained rows; none: any lane may have.
  woken(lanes: number[]): void;
  // A lane was just taken.
  taken(lane: number): void;
}

export interface LaneOwnership {
  // The session while it is connected (undefined once lost or closed).
  session(): pg.Client | undefined;
  onSession: SessionRunner;
  // Takes the free lanes not waiting out a backoff, or sends the heartbeat when none is wanted;
  // connects first when there is no session. One run at a time.
  acquire(): Promise<void>;
  lanes(): ReadonlySet<number>;
  owns(lane: number): boolean;
  // The epoch this process holds for a lane it owns.
  epochOf(lane: number): number | undefined;
  fenceOf(lane: number, epoch: number): LaneFence;
  // A batch of `epoch` was refused by the lane's fence `seen`: true when this session still
  // holds the lane and moved its epoch past the fence; false when the lane is lost (dropped).
  passFence(client: pg.Client, lane: number, epoch: number, seen: number): Promise<boolean>;
  // A batch of the lane passed: its next release starts its backoff over.
  passed(lane: number): void;
  // Lets the lane go after a failed batch, not to be taken again before its backoff is over.
  release(lane: number, err: unknown): Promise<void>;
  // Forgets every lane and ends the session, which releases its advisory locks.
  close(): Promise<void>;
}

// An error with a SQLSTATE is Postgres answering; anything else on the session (a timeout, a
// reset, an end) means the session is gone.
const sessionBroken = (err: unknown): boolean =>
  typeof (err as { code?: unknown }).code !== 'string' || !/^[0-9A-Z]{5}$/.test((err as { code: string }).code);

export function createLaneOwnership(
  deps: { databaseUrl: string; log: Logger },
  options: LaneOwnershipOptions,
  hooks: LaneOwnershipHooks,
): LaneOwnership {
  const { log } = deps;
  let session: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let acquiring: Promise<void> | undefined;
  const owned = new Set<number>();
  // The epoch this process holds for each lane it owns (graph_lane_epochs), and the key of each
  // lane's fence node (fixed per lane and database).
  const epochs = new Map<number, number>();
  const fenceKeys = new Map<number, string>();
  // Per lane: failed batches since the last that passed, and when it may be taken again.
  const failures = new Map<number, number>();
  const retryAt = new Map<number, number>();

  // The session runs one query at a time (lanes drain concurrently; pg queues no longer).
  let queue: Promise<unknown> = Promise.resolve();
  const onSession: SessionRunner = (client, fn) => {
    const run = queue.then(() => fn(client));
    queue = run.catch(() => undefined);
    // A query that timed out or lost its connection: the session, its locks and lanes are gone.
    run.catch((err: unknown) => {
      if (sessionBroken(err)) lost(client, err instanceof Error ? err : new Error(String(err)));
    });
    return run;
  };

  const connect = () =>
    (connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: deps.databaseUrl,
        application_name: 'doorman-graph-writer',
        connectionTimeoutMillis: options.sessionQueryTimeoutMs,
        query_timeout: options.sessionQueryTimeoutMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: 5_000,
      });
      client.on('error', (err) => lost(client, err));
      // The payload names the lanes that gained rows ('3,7'); empty: any lane may have.
      client.on('notification', (msg) => {
        hooks.woken(
          (msg.payload ?? '')
            .split(',')
            .filter(Boolean)
            .map(Number)
            .filter((l) => Number.isInteger(l)),
        );
      });
      try {
        await client.connect();
        await setUpWriterSession(client, {
          idleTimeoutMs: options.sessionIdleTimeoutMs,
          statementTimeoutMs: options.sessionQueryTimeoutMs,
          channel: CHANNEL,
        });
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
  const acquire = () =>
    (acquiring ??= takeFreeLanes().finally(() => {
      acquiring = undefined;
    }));

  async function takeFreeLanes() {
    if (hooks.stopping()) return;
    if (!session) await connect();
    const client = session;
    if (!client) return;
    const now = Date.now();
    const wanted = Array.from({ length: LANES }, (_, lane) => lane).filter((lane) => !owned.has(lane) && (retryAt.get(lane) ?? 0) <= now);
    try {
      if (wanted.length === 0) {
        await onSession(client, heartbeat);
        return;
      }
      const taken = await onSession(client, (c) => takeLanes(c, wanted));
      if (session !== client) return;
      for (const { lane, epoch, fenceKey } of taken) {
        owned.add(lane);
        epochs.set(lane, epoch);
        fenceKeys.set(lane, fenceKey);
        hooks.taken(lane);
      }
    } catch (err) {
      log.warn({ err: String(err) }, 'graph writer could not take lanes');
    }
  }

  async function passFence(client: pg.Client, lane: number, epoch: number, seen: number): Promise<boolean> {
    // Still this process's lane (its session holds the lock): the fence is ahead because
    // Postgres's epochs fell behind the graph's (a restored backup). The holder moves past the
    // fence and goes on; no one else can hold the lane.
    const caughtUp = await onSession(client, (c) => passLaneFence(c, lane, seen)).catch(() => undefined);
    if (caughtUp !== undefined && session === client && owned.has(lane)) {
      log.info({ lane, epoch: caughtUp, fence: seen }, 'graph writer moved its lane past a fence set by an earlier epoch count');
      epochs.set(lane, caughtUp);
      return true;
    }
    // Another process owns the lane now: this one stops writing it at once.
    log.warn({ lane, epoch }, 'graph writer lost a lane to a newer owner; its batch was refused');
    owned.delete(lane);
    epochs.delete(lane);
    return false;
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
        for (let i = 0; i < 8; i++) if (!(await unlockLane(c, lane))) return;
      }).catch(() => undefined);
    }
  }

  return {
    session: () => session,
    onSession,
    acquire,
    lanes: () => owned,
    owns: (lane) => owned.has(lane),
    epochOf: (lane) => epochs.get(lane),
    fenceOf: (lane, epoch) => ({ lane, epoch, key: fenceKeys.get(lane)! }),
    passFence,
    passed: (lane) => void failures.delete(lane),
    release,
    async close() {
      owned.clear();
      epochs.clear();
      const client = session;
      session = undefined;
      // Ending the session releases its advisory locks.
      await client?.end().catch(() => undefined);
    },
  };
}
