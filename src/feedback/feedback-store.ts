// SQL for feedback, and the Postgres side of resolving a feedback subject.
import type { Queryable } from '../db/queryable.js';
import type { SubjectKind } from '../graph/graph-outbox.js';
import type { Scope } from '../scope.js';
import { newId } from '../db/new-id.js';

export type { SubjectKind };
export type Outcome = 'confirmed_abuse' | 'false_positive' | 'chargeback';

// Records the outcome once per (subject, outcome). Identical posts at the same moment: the second
// waits on the primary key, then records nothing. A retracted outcome reported again is
// reinstated (its mark is applied again). `at` is its time, the same as its mark's in the graph
// (a rebuild reads it back). Returns whether it was new or reinstated.
export async function recordOutcome(
  db: Queryable,
  scope: Scope,
  input: { kind: SubjectKind; value: string; outcome: Outcome; note?: string; at: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO feedback (id, tenant_id, mode, subject_kind, subject_value, outcome, note, created_at)
     VALUES ($7, $1, $2, $3, $4, $5, $6, $8)
     ON CONFLICT (tenant_id, mode, subject_kind, subject_value, outcome) DO UPDATE
       SET retracted_at = NULL, retracted_by = NULL, retract_note = NULL, note = EXCLUDED.note, created_at = EXCLUDED.created_at
     WHERE feedback.retracted_at IS NOT NULL`,
    [scope.tenantId, scope.mode, input.kind, input.value, input.outcome, input.note ?? null, newId('fbk'), input.at],
  );
  return rowCount === 1;
}

export interface FeedbackRow {
  feedback_id: string;
  outcome: Outcome;
  subject: { kind: SubjectKind; value: string };
  note: string | null;
  created_at: string;
  retracted_at: string | null;
  retract_note: string | null;
}

const toRow = (r: {
  id: string;
  outcome: Outcome;
  subject_kind: SubjectKind;
  subject_value: string;
  note: string | null;
  created_at: Date;
  retracted_at: Date | null;
  retract_note: string | null;
}): FeedbackRow => ({
  feedback_id: r.id,
  outcome: r.outcome,
  subject: { kind: r.subject_kind, value: r.subject_value },
  note: r.note,
  created_at: r.created_at.toISOString(),
  retracted_at: r.retracted_at?.toISOString() ?? null,
  retract_note: r.retract_note,
});

// A scope's feedback, newest first (at most `limit`), optionally about one account, email or event.
export async function listFeedback(
  db: Queryable,
  scope: Scope,
  filter: { externalUserId?: string; email?: string; eventId?: string },
  limit = 100,
): Promise<FeedbackRow[]> {
  const { rows } = await db.query(
    `SELECT id, outcome, subject_kind, subject_value, note, created_at, retracted_at, retract_note FROM feedback
      WHERE tenant_id = $1 AND mode = $2
        AND ($3::text IS NULL OR (subject_kind = 'external_user_id' AND subject_value = $3))
        AND ($4::text IS NULL OR (subject_kind = 'email' AND lower(subject_value) = lower($4)))
        AND ($5::text IS NULL OR (subject_kind = 'event_id' AND subject_value = $5))
      ORDER BY created_at DESC, id DESC LIMIT $6`,
    [scope.tenantId, scope.mode, filter.externalUserId ?? null, filter.email ?? null, filter.eventId ?? null, limit],
  );
  return rows.map(toRow);
}

// Marks one feedback row retracted; undefined when there is no such row in the scope. `already`
// when it was retracted before (nothing changes).
export async function retractOutcome(
  db: Queryable,
  scope: Scope,
  id: string,
  by: string,
  note: string,
): Promise<{ row: FeedbackRow; already: boolean } | undefined> {
  const { rows } = await db.query(
    `WITH target AS (SELECT * FROM feedback WHERE tenant_id = $1 AND mode = $2 AND id = $3 FOR UPDATE),
     done AS (UPDATE feedback f SET retracted_at = now(), retracted_by = $4, retract_note = $5
               FROM target t WHERE f.tenant_id = t.tenant_id AND f.mode = t.mode AND f.id = t.id AND t.retracted_at IS NULL
               RETURNING f.*)
     SELECT coalesce(d.id, t.id) AS id, t.outcome, t.subject_kind, t.subject_value, t.note, t.created_at,
            coalesce(d.retracted_at, t.retracted_at) AS retracted_at, coalesce(d.retract_note, t.retract_note) AS retract_note,
            d.id IS NULL AS already
       FROM target t LEFT JOIN done d ON d.id = t.id`,
    [scope.tenantId, scope.mode, id, by, note],
  );
  const r = rows[0];
  return r ? { row: toRow(r), already: r.already } : undefined;
}

// The reason codes that fired on the subject's events (newest 100), and whether any exist.
// Whether the event was erased, the row locked against an erasure running now (which locks the
// person's events): one that committed is seen, one that follows takes the mark back itself.
export async function lockEventErased(tx: Queryable, scope: Scope, eventId: string): Promise<boolean> {
  const { rows } = await tx.query<{ erased: boolean }>(
    `SELECT request ? 'erased' AS erased FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3 FOR SHARE`,
    [scope.tenantId, scope.mode, eventId],
  );
  return rows[0]?.erased ?? false;
}

export async function subjectEvents(
  db: Queryable,
  scope: Scope,
  kind: SubjectKind,
  value: string,
): Promise<{ found: boolean; codes: string[] }> {
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
