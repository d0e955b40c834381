// SQL for feedback, and the Postgres side of resolving a feedback subject.
import type { Queryable } from '../db/queryable.js';
import type { SubjectKind } from '../graph/graph-outbox.js';
import type { Scope } from '../scope.js';

export type { SubjectKind };
export type Outcome = 'confirmed_abuse' | 'false_positive' | 'chargeback';

// Records the outcome once per (subject, outcome). Identical posts at the same moment: the second
// waits on the primary key, then records nothing. Returns whether it was new.
export async function recordOutcome(
  db: Queryable,
  scope: Scope,
  input: { kind: SubjectKind; value: string; outcome: Outcome; note?: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO feedback (tenant_id, mode, subject_kind, subject_value, outcome, note)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [scope.tenantId, scope.mode, input.kind, input.value, input.outcome, input.note ?? null],
  );
  return rowCount === 1;
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
