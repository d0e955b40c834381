// SQL for graph_outbox: what the identity graph must gain, written in the same transaction as
// the row that causes it (an event, a feedback outcome, a PATCH, a review resolution) and
// applied after commit by the graph writer, lane by lane, in seq order. Applied rows are deleted.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { GraphLink } from './identity-graph.js';

export type MarkOutcome = 'confirmed_abuse' | 'false_positive' | 'chargeback';

// A feedback outcome or a review resolution, applied to the subject's cluster(s) once per key.
export interface GraphMark {
  tenantId: string;
  mode: string;
  key: string;
  at: number;
  anchorKind: 'event' | 'account' | 'email';
  anchorValue: string;
  outcome: MarkOutcome;
  codes: string[];
}

// Events or a person removed from the graph (retention, erasure; src/lifecycle/).
export interface GraphForget {
  tenantId: string;
  mode: string;
  at: number;
  eventIds: string[];
  accounts: string[];
  ids: { kind: string; value: string }[];
  feedbackKeys: string[];
  erasureId: string | null;
}

export type GraphOp = { kind: 'link'; payload: GraphLink } | { kind: 'mark'; payload: GraphMark } | { kind: 'forget'; payload: GraphForget };

export interface OutboxRow {
  seq: string;
  kind: 'link' | 'mark' | 'forget';
  payload: GraphLink | GraphMark | GraphForget;
}

export async function enqueueGraphOp(db: Queryable, scope: Scope, op: GraphOp): Promise<void> {
  await db.query(`INSERT INTO graph_outbox (tenant_id, mode, kind, event_id, payload) VALUES ($1, $2, $3, $4, $5)`, [
    scope.tenantId, scope.mode, op.kind, op.kind === 'link' ? op.payload.eventId : null, JSON.stringify(op.payload),
  ]);
}

export async function nextBatch(db: Queryable, lane: number, limit: number): Promise<OutboxRow[]> {
  const { rows } = await db.query<OutboxRow>(
    `SELECT seq, kind, payload FROM graph_outbox WHERE lane = $1 AND failed_at IS NULL ORDER BY seq LIMIT $2`,
    [lane, limit],
  );
  return rows;
}

// Deletes applied rows; returns how long each waited from its insert to now (the link lag), ms.
export async function deleteApplied(db: Queryable, seqs: string[]): Promise<number[]> {
  const { rows } = await db.query<{ lag_ms: number }>(
    `DELETE FROM graph_outbox WHERE seq = ANY($1::bigint[])
     RETURNING (extract(epoch FROM clock_timestamp() - created_at) * 1000)::float8 AS lag_ms`,
    [seqs],
  );
  return rows.map((r) => r.lag_ms);
}

export async function markFailed(db: Queryable, seq: string, error: string): Promise<void> {
  await db.query(`UPDATE graph_outbox SET failed_at = clock_timestamp(), error = $2 WHERE seq = $1`, [seq, error.slice(0, 2000)]);
}

// Of the given lanes, those with rows waiting.
export async function lanesWithWork(db: Queryable, lanes: number[]): Promise<number[]> {
  const { rows } = await db.query<{ lane: number }>(
    `SELECT l AS lane FROM unnest($1::int[]) AS l
      WHERE EXISTS (SELECT 1 FROM graph_outbox WHERE lane = l AND failed_at IS NULL)`,
    [lanes],
  );
  return rows.map((r) => r.lane);
}

// Rows not yet applied, for a scope (tests, the console) or in all (operators, the bench).
export async function pendingGraphOps(db: Queryable, scope?: Scope): Promise<number> {
  const { rows } = scope
    ? await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM graph_outbox WHERE tenant_id = $1 AND mode = $2 AND failed_at IS NULL`, [scope.tenantId, scope.mode])
    : await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM graph_outbox WHERE failed_at IS NULL`);
  return rows[0]?.n ?? 0;
}
