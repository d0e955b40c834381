// SQL for feedback, and the Postgres side of resolving a feedback subject.
import type { Queryable, Scope } from '../db/queryable.js';

export type SubjectKind = 'event_id' | 'external_user_id' | 'email';
export type Outcome = 'confirmed_abuse' | 'false_positive' | 'chargeback';

// Returns whether the outcome still has to be applied to the graph (new, or never applied).
export async function recordOutcome(db: Queryable, scope: Scope, kind: SubjectKind, value: string, outcome: Outcome, note?: string): Promise<boolean> {
  const { rows } = await db.query<{ applied: boolean }>(
    `WITH inserted AS (
       INSERT INTO feedback (tenant_id, mode, subject_kind, subject_value, outcome, note)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING false AS applied)
     SELECT applied FROM inserted
     UNION ALL
     SELECT applied_at IS NOT NULL FROM feedback
      WHERE tenant_id = $1 AND mode = $2 AND subject_kind = $3 AND subject_value = $4 AND outcome = $5
        AND NOT EXISTS (SELECT 1 FROM inserted)`,
    [scope.tenantId, scope.mode, kind, value, outcome, note ?? null],
  );
  return rows[0]?.applied !== true;
}

export async function markApplied(db: Queryable, scope: Scope, kind: SubjectKind, value: string, outcome: Outcome): Promise<void> {
  await db.query(
    `UPDATE feedback SET applied_at = now()
      WHERE tenant_id = $1 AND mode = $2 AND subject_kind = $3 AND subject_value = $4 AND outcome = $5`,
    [scope.tenantId, scope.mode, kind, value, outcome],
  );
}

// The reason codes that fired on the subject's events (newest 100), and whether any exist.
export async function subjectEvents(db: Queryable, scope: Scope, kind: SubjectKind, value: string): Promise<{ found: boolean; codes: string[] }> {
  const column = { event_id: 'id', external_user_id: 'external_user_id', email: 'lower(email)' }[kind];
  const { rows } = await db.query<{ codes: string[] | null; n: number }>(
    `SELECT count(*)::int AS n, array_agg(DISTINCT r->>'code') FILTER (WHERE r IS NOT NULL) AS codes
       FROM (SELECT reasons FROM events WHERE tenant_id = $1 AND mode = $2 AND ${column} = $3
              ORDER BY created_at DESC LIMIT 100) e
       LEFT JOIN LATERAL jsonb_array_elements(e.reasons) r ON true`,
    [scope.tenantId, scope.mode, kind === 'email' ? value.toLowerCase() : value],
  );
  return { found: (rows[0]?.n ?? 0) > 0, codes: rows[0]?.codes ?? [] };
}
