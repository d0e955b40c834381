// One step of a lane's drain: read the lane's next batch, apply it to Neo4j under the lane's
// fence, delete what was applied and return the link lags. A row Neo4j refuses as invalid is set
// aside and the others applied. A batch that fails for a reason other than an outage is split at
// once (the lane's batch limit is halved), down to the row that fails, which is then counted as
// a poison row (poison-rows.ts); the limit doubles back, gradually, once a batch passes.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Driver } from 'neo4j-driver';
import type { CypherCatalog } from './cypher-catalog.js';
import { applyGraphOps, isInvalidOp, StaleLaneError, type LaneFence } from './apply-graph-ops.js';
import { deleteApplied, markFailed, nextBatch, type OutboxRow } from './graph-outbox-store.js';
import type { SessionRunner } from './lane-ownership.js';
import { isOutage, type PoisonRows } from './poison-rows.js';

export type BatchStep =
  // The lane held nothing.
  | { kind: 'empty' }
  // `read` rows were read, and those applied deleted (their lags, ms); the rest were set aside.
  | { kind: 'applied'; read: number; lags: number[] }
  // Read the lane again at once: the batch was split, or its rows were all set aside.
  | { kind: 'again' }
  // An outage, a fence past this batch's epoch (StaleLaneError), or a row that failed alone and
  // is not set aside yet: nothing was applied.
  | { kind: 'failed'; err: unknown };

export interface BatchApply {
  next(client: pg.Client, lane: number, fence: LaneFence): Promise<BatchStep>;
  // The batch size the lane reads with now.
  limit(lane: number): number;
  // How many rows Neo4j refused as invalid, set aside.
  setAside(): number;
}

type BatchDeps = {
  graph: Driver;
  cypher: CypherCatalog;
  log: Logger;
  onSession: SessionRunner;
  poison: PoisonRows;
  // A batch of the lane passed (before its rows are deleted).
  passed(lane: number): void;
};

export function createBatchApply(deps: BatchDeps, options: { batchSize: number; applyTimeoutMs: number }): BatchApply {
  const { graph, cypher, log, onSession, poison } = deps;
  const { batchSize, applyTimeoutMs } = options;
  // Per lane: the batch size in use, while it is below batchSize (halved after a failure).
  const batchLimit = new Map<number, number>();
  let setAside = 0;

  // Applies rows under the lane's fence; a row Neo4j refuses as invalid is set aside, the others
  // are applied.
  async function apply(client: pg.Client, rows: OutboxRow[], fence: LaneFence): Promise<OutboxRow[]> {
    try {
      await applyGraphOps(graph, cypher, rows, applyTimeoutMs, fence);
      return rows;
    } catch (err) {
      if (!isInvalidOp(err)) throw err;
    }
    const applied: OutboxRow[] = [];
    for (const row of rows) {
      try {
        await applyGraphOps(graph, cypher, [row], applyTimeoutMs, fence);
        applied.push(row);
      } catch (err) {
        if (!isInvalidOp(err)) throw err;
        setAside += 1;
        log.error({ seq: row.seq, kind: row.kind, err: String(err) }, 'graph writer set aside an outbox row Neo4j refused');
        await onSession(client, (c) => markFailed(c, row.seq, String(err)));
      }
    }
    return applied;
  }

  // A batch failed: split it when it is not an outage, down to the row that fails, which is
  // counted as poison; anything else is the lane's failure.
  async function failed(client: pg.Client, lane: number, rows: OutboxRow[], err: unknown): Promise<BatchStep> {
    if (err instanceof StaleLaneError || isOutage(err)) return { kind: 'failed', err };
    // Not an outage: split the batch at once, down to the row that fails.
    if (rows.length > 1) {
      batchLimit.set(lane, Math.max(1, Math.floor(rows.length / 2)));
      return { kind: 'again' };
    }
    if (await poison.failedAlone(client, lane, rows[0]!, err).catch(() => false)) return { kind: 'again' };
    return { kind: 'failed', err };
  }

  // Back to full batches, gradually, once a batch passes.
  function recover(lane: number) {
    const limit = batchLimit.get(lane);
    if (limit === undefined) return;
    if (limit * 2 >= batchSize) batchLimit.delete(lane);
    else batchLimit.set(lane, limit * 2);
  }

  return {
    async next(client, lane, fence) {
      const rows = await onSession(client, (c) => nextBatch(c, lane, batchLimit.get(lane) ?? batchSize));
      if (rows.length === 0) return { kind: 'empty' };
      let applied: OutboxRow[];
      try {
        applied = await apply(client, rows, fence);
      } catch (err) {
        return failed(client, lane, rows, err);
      }
      deps.passed(lane);
      recover(lane);
      poison.passed(rows);
      if (applied.length === 0) return { kind: 'again' };
      const lags = await onSession(client, (c) =>
        deleteApplied(
          c,
          applied.map((r) => r.seq),
        ),
      );
      return { kind: 'applied', read: rows.length, lags };
    },
    limit: (lane) => batchLimit.get(lane) ?? batchSize,
    setAside: () => setAside,
  };
}
