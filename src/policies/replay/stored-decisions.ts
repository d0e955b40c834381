// Reading stored decisions back with the signals they were judged on, for replay, explain and
// backtests: one by id, or a range streamed a batch at a time (src/db/long-read.ts), so a range of
// any size is never held whole.
import type pg from 'pg';
import { streamRows } from '../../db/long-read.js';
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import type { Reason, Signals, Verdict } from '../../engine/types.js';
import type { EventRecord } from '../../event-record.js';

// A stored event with the signals it was judged on, and its scope (a range may span several).
export interface StoredDecision extends EventRecord {
  tenantId: string;
  mode: 'live' | 'test';
  signals: Signals;
}

interface Row {
  tenant_id: string;
  mode: 'live' | 'test';
  id: string;
  event_type: string;
  verdict: Verdict;
  reasons: Reason[];
  recommended_action: string | null;
  policy_version: string;
  engine_version: string | null;
  signals: Signals;
  created_at: Date;
  external_user_id: string | null;
  email: string | null;
}

const COLUMNS = `tenant_id, mode, id, event_type, verdict, reasons, recommended_action, policy_version, engine_version, signals,
  created_at, external_user_id, email`;

const fromRow = (r: Row): StoredDecision => ({
  tenantId: r.tenant_id,
  mode: r.mode,
  id: r.id,
  eventType: r.event_type,
  verdict: r.verdict,
  reasons: r.reasons,
  recommendedAction: r.recommended_action ?? undefined,
  policyVersion: r.policy_version,
  engineVersion: r.engine_version ?? undefined,
  signals: r.signals,
  createdAt: r.created_at,
  externalUserId: r.external_user_id ?? undefined,
  email: r.email ?? undefined,
});

export async function findStoredDecision(db: Queryable, scope: Scope, id: string): Promise<StoredDecision | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3`, [
    scope.tenantId,
    scope.mode,
    id,
  ]);
  return rows[0] && fromRow(rows[0]);
}

export interface DecisionFilter {
  // One scope, or (for the fleet-wide replay check) every scope of these tenants, or all.
  scope?: Scope;
  tenantIds?: string[];
  from?: Date;
  to?: Date;
  eventType?: string;
  // Only decisions recorded as judged by this engine version.
  engineVersion?: string;
}

function where(f: DecisionFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  // An erased person's events keep their verdict but not the signals it was judged on
  // (lifecycle/erasure-store.ts): there is nothing left to replay or backtest.
  const clauses: string[] = [`NOT (signals ? 'erased')`];
  if (f.scope) clauses.push(`tenant_id = $${params.push(f.scope.tenantId)}`, `mode = $${params.push(f.scope.mode)}`);
  if (f.tenantIds) clauses.push(`tenant_id = ANY($${params.push(f.tenantIds)}::text[])`);
  if (f.from) clauses.push(`created_at >= $${params.push(f.from)}`);
  if (f.to) clauses.push(`created_at < $${params.push(f.to)}`);
  if (f.eventType) clauses.push(`event_type = $${params.push(f.eventType)}`);
  if (f.engineVersion) clauses.push(`engine_version = $${params.push(f.engineVersion)}`);
  return { sql: `WHERE ${clauses.join(' AND ')}`, params };
}

export async function countDecisions(db: Queryable, f: DecisionFilter): Promise<number> {
  const w = where(f);
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events ${w.sql}`, w.params);
  return rows[0]?.n ?? 0;
}

// What a backtest reads of each decision, and no more (parsing is most of a backtest's cost):
// the stored reasons' codes only, rows as arrays, the time as epoch milliseconds in text
// (turned into a date only for the few events that flip).
export interface BacktestRow {
  id: string;
  verdict: Verdict;
  codes: string[];
  signals: Signals;
  at: string;
  externalUserId?: string;
  email?: string;
}

type BacktestTuple = [string, Verdict, string[], Signals, string, string | null, string | null];

// Like streamDecisions, with the next batch already on its way while one is evaluated.
export async function streamForBacktest(
  pool: pg.Pool,
  f: DecisionFilter,
  onBatch: (batch: BacktestRow[]) => Promise<void> | void,
  batchSize = 2000,
): Promise<void> {
  const w = where(f);
  await streamRows<BacktestTuple>(
    pool,
    {
      text: `SELECT id, verdict, jsonb_path_query_array(reasons, '$[*].code'), signals, (extract(epoch FROM created_at) * 1000)::bigint,
              external_user_id, email
         FROM events ${w.sql} ORDER BY created_at, id`,
      values: w.params,
      rowMode: 'array',
      batchSize,
      readAhead: true,
    },
    (rows) =>
      onBatch(
        rows.map(([id, verdict, codes, signals, at, externalUserId, email]) => ({
          id,
          verdict,
          codes,
          signals,
          at,
          externalUserId: externalUserId ?? undefined,
          email: email ?? undefined,
        })),
      ),
  );
}

// Calls onBatch with each batch in (created_at, id) order; awaits it before reading on.
export async function streamDecisions(
  pool: pg.Pool,
  f: DecisionFilter,
  onBatch: (batch: StoredDecision[]) => Promise<void> | void,
  batchSize = 5000,
): Promise<void> {
  const w = where(f);
  await streamRows<Row>(
    pool,
    { text: `SELECT ${COLUMNS} FROM events ${w.sql} ORDER BY created_at, id`, values: w.params, batchSize },
    (rows) => onBatch(rows.map(fromRow)),
  );
}
