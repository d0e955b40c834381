// SQL for shadow decisions: one per (shadow version, live event), written after the response.
import type pg from 'pg';
import { streamRows } from '../../db/long-read.js';
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import type { Reason, Signals, Verdict } from '../../engine/types.js';

export interface ShadowDecision {
  eventId: string;
  policyVersion: string;
  engineVersion?: string;
  verdict: Verdict;
  reasons: Reason[];
  recommendedAction?: string;
  liveVerdict: Verdict;
  createdAt: Date;
}

// A replayed verdict request never stores a second shadow decision.
export async function insertShadowDecision(db: Queryable, scope: Scope, d: ShadowDecision): Promise<void> {
  await db.query(
    `INSERT INTO shadow_decisions (tenant_id, mode, policy_version, event_id, engine_version, verdict, reasons, recommended_action, live_verdict, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
    [
      scope.tenantId,
      scope.mode,
      d.policyVersion,
      d.eventId,
      d.engineVersion ?? null,
      d.verdict,
      JSON.stringify(d.reasons),
      d.recommendedAction ?? null,
      d.liveVerdict,
      d.createdAt,
    ],
  );
}

export interface ShadowRow {
  event_id: string;
  event_type: string;
  created_at: Date;
  verdict: Verdict;
  reasons: Reason[];
  live_verdict: Verdict;
  live_reasons: Reason[];
  external_user_id: string | null;
  email: string | null;
  signals: Pick<Signals, 'graph'>;
}

export interface ShadowFilter {
  version: string;
  from?: Date;
  to?: Date;
}

const JOINED = `SELECT s.event_id, e.event_type, s.created_at, s.verdict, s.reasons, s.live_verdict, e.reasons AS live_reasons,
    e.external_user_id, e.email, jsonb_build_object('graph', e.signals->'graph') AS signals
   FROM shadow_decisions s JOIN events e ON e.tenant_id = s.tenant_id AND e.mode = s.mode AND e.id = s.event_id
  WHERE s.tenant_id = $1 AND s.mode = $2 AND s.policy_version = $3
    AND ($4::timestamptz IS NULL OR s.created_at >= $4) AND ($5::timestamptz IS NULL OR s.created_at < $5)`;

// Every shadow decision of the version in the range, streamed in batches, oldest first.
export async function streamShadowDecisions(
  pool: pg.Pool,
  scope: Scope,
  f: ShadowFilter,
  onBatch: (rows: ShadowRow[]) => void,
): Promise<void> {
  await streamRows<ShadowRow>(
    pool,
    {
      text: `${JOINED} ORDER BY s.created_at, s.event_id`,
      values: [scope.tenantId, scope.mode, f.version, f.from ?? null, f.to ?? null],
      batchSize: 5000,
    },
    onBatch,
  );
}

// A page of the events whose shadow verdict differs from the live one, after a keyset position.
export async function shadowFlips(
  db: Queryable,
  scope: Scope,
  f: ShadowFilter,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<ShadowRow[]> {
  const { rows } = await db.query<ShadowRow>(
    `${JOINED} AND s.verdict <> s.live_verdict AND ($6::timestamptz IS NULL OR (s.created_at, s.event_id) > ($6, $7::text))
     ORDER BY s.created_at, s.event_id LIMIT $8`,
    [scope.tenantId, scope.mode, f.version, f.from ?? null, f.to ?? null, after?.createdAt ?? null, after?.id ?? null, limit + 1],
  );
  return rows;
}
