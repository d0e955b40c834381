// SQL for backtests: the run (candidate, range, status, progress, result) and its flips.
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import type { PolicyDocument } from '../documents/policy-document.js';
import type { Flip, TallyResult } from './backtest-tally.js';

export type BacktestStatus = 'queued' | 'running' | 'done' | 'failed';

export interface Backtest {
  id: string;
  tenantId: string;
  mode: 'live' | 'test';
  candidate: PolicyDocument;
  candidateVersion?: string;
  from: Date;
  to: Date;
  eventType?: string;
  status: BacktestStatus;
  eventsTotal: number;
  eventsDone: number;
  result?: TallyResult & Record<string, unknown>;
  error?: string;
  createdAt: Date;
  finishedAt?: Date;
}

interface Row {
  id: string;
  tenant_id: string;
  mode: 'live' | 'test';
  candidate: PolicyDocument;
  candidate_version: string | null;
  range_from: Date;
  range_to: Date;
  event_type: string | null;
  status: BacktestStatus;
  events_total: number;
  events_done: number;
  result: Backtest['result'] | null;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const fromRow = (r: Row): Backtest => ({
  id: r.id,
  tenantId: r.tenant_id,
  mode: r.mode,
  candidate: r.candidate,
  candidateVersion: r.candidate_version ?? undefined,
  from: r.range_from,
  to: r.range_to,
  eventType: r.event_type ?? undefined,
  status: r.status,
  eventsTotal: r.events_total,
  eventsDone: r.events_done,
  result: r.result ?? undefined,
  error: r.error ?? undefined,
  createdAt: r.created_at,
  finishedAt: r.finished_at ?? undefined,
});

export async function insertBacktest(
  db: Queryable,
  scope: Scope,
  b: Pick<Backtest, 'id' | 'candidate' | 'candidateVersion' | 'from' | 'to' | 'eventType' | 'eventsTotal' | 'status'>,
): Promise<void> {
  await db.query(
    `INSERT INTO policy_backtests (id, tenant_id, mode, candidate, candidate_version, range_from, range_to, event_type, status, events_total)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      b.id,
      scope.tenantId,
      scope.mode,
      JSON.stringify(b.candidate),
      b.candidateVersion ?? null,
      b.from,
      b.to,
      b.eventType ?? null,
      b.status,
      b.eventsTotal,
    ],
  );
}

// By id alone for the job (which carries no scope); by scope for anyone asking.
export async function findBacktest(db: Queryable, id: string, scope?: Scope): Promise<Backtest | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT * FROM policy_backtests WHERE id = $1 AND ($2::text IS NULL OR (tenant_id = $2 AND mode = $3))`,
    [id, scope?.tenantId ?? null, scope?.mode ?? null],
  );
  return rows[0] && fromRow(rows[0]);
}

// A (re)started run forgets what a previous attempt stored.
export async function restartBacktest(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM policy_backtest_flips WHERE backtest_id = $1', [id]);
  await db.query(
    `UPDATE policy_backtests SET status = 'running', events_done = 0, result = NULL, error = NULL, finished_at = NULL WHERE id = $1`,
    [id],
  );
}

export async function recordProgress(db: Queryable, id: string, done: number): Promise<void> {
  await db.query('UPDATE policy_backtests SET events_done = $2 WHERE id = $1', [id, done]);
}

export async function finishBacktest(db: Queryable, id: string, result: Record<string, unknown>): Promise<void> {
  await db.query(
    `UPDATE policy_backtests SET status = 'done', result = $2, events_done = ($2::jsonb->>'events')::int, finished_at = now() WHERE id = $1`,
    [id, JSON.stringify(result)],
  );
}

export async function failBacktest(db: Queryable, id: string, error: string): Promise<void> {
  await db.query(`UPDATE policy_backtests SET status = 'failed', error = $2, finished_at = now() WHERE id = $1`, [id, error]);
}

// One statement per batch of flips.
export async function insertFlips(db: Queryable, id: string, firstSeq: number, flips: Flip[]): Promise<void> {
  if (flips.length === 0) return;
  await db.query(
    `INSERT INTO policy_backtest_flips (backtest_id, seq, event_id, event_type, created_at, before, after, added, removed, label)
     SELECT $1, $2 + i - 1, f->>'event_id', f->>'event_type', (f->>'created_at')::timestamptz, f->>'before', f->>'after',
            ARRAY(SELECT jsonb_array_elements_text(f->'added')), ARRAY(SELECT jsonb_array_elements_text(f->'removed')), f->>'label'
       FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(f, i)`,
    [id, firstSeq, JSON.stringify(flips)],
  );
}

// A page of flips after seq `after` (0 for the first page), in evaluation order.
export async function listFlips(
  db: Queryable,
  id: string,
  after: number,
  limit: number,
): Promise<{ flips: (Flip & { seq: number })[]; more: boolean }> {
  const { rows } = await db.query<Flip & { seq: number; created_at: Date }>(
    `SELECT seq, event_id, event_type, created_at, before, after, added, removed, label FROM policy_backtest_flips
      WHERE backtest_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [id, after, limit + 1],
  );
  const flips = rows.slice(0, limit).map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
  return { flips, more: rows.length > limit };
}
