// SQL for retention: one bounded batch of a scope's oldest events past the cutoff, removed with
// everything that hangs off them (review, webhook deliveries and attempts), and old
// feedback. Each batch is one short transaction, which also drops the events' unapplied outbox rows
// and queues the graph's forget row (through src/graph/graph-outbox.ts).
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import { feedbackMarkKey, reviewMarkKey, type SubjectKind } from '../graph/graph-outbox.js';
import type { MarkOutcome } from '../graph/graph-outbox-store.js';

const OUTCOMES: MarkOutcome[] = ['confirmed_abuse', 'false_positive', 'chargeback'];

// The (:Feedback) keys of marks about these events (feedback on the event, a review resolution).
export function eventFeedbackKeys(eventIds: string[]): string[] {
  return eventIds.flatMap((id) => [reviewMarkKey(id), ...OUTCOMES.map((o) => feedbackMarkKey('event_id', id, o))]);
}

// Removes the events; their reviews, shadow decisions, webhook deliveries and attempts go with
// them (ON DELETE CASCADE, migration 0014); their unapplied outbox rows are the graph's to drop
// (apply-retention.ts asks it: the outbox holds no foreign key). Idempotency records are left to their own 24-hour expiry
// (housekeeping), which every event past retention has long passed.
export async function deleteEventsAndDependents(tx: Queryable, scope: Scope, ids: string[]): Promise<void> {
  const s = [scope.tenantId, scope.mode, ids];
  await tx.query('DELETE FROM events WHERE tenant_id = $1 AND mode = $2 AND id = ANY($3)', s);
}

// The scope's oldest events judged before the cutoff, at most `limit`, locked for this transaction.
export async function oldestEventsBefore(tx: Queryable, scope: Scope, cutoff: Date, limit: number): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM events WHERE tenant_id = $1 AND mode = $2 AND created_at < $3
      ORDER BY created_at, id LIMIT $4 FOR UPDATE SKIP LOCKED`,
    [scope.tenantId, scope.mode, cutoff, limit],
  );
  return rows.map((r) => r.id);
}

// Feedback reported before the cutoff, at most `limit`; returns the graph keys of their marks.
export async function deleteOldFeedback(tx: Queryable, scope: Scope, cutoff: Date, limit: number): Promise<string[]> {
  const { rows } = await tx.query<{ subject_kind: string; subject_value: string; outcome: string }>(
    `DELETE FROM feedback WHERE (tenant_id, mode, subject_kind, subject_value, outcome) IN (
       SELECT tenant_id, mode, subject_kind, subject_value, outcome FROM feedback
        WHERE tenant_id = $1 AND mode = $2 AND created_at < $3 LIMIT $4)
     RETURNING subject_kind, subject_value, outcome`,
    [scope.tenantId, scope.mode, cutoff, limit],
  );
  return rows.map((r) => feedbackMarkKey(r.subject_kind as SubjectKind, r.subject_value, r.outcome as MarkOutcome));
}

// The scopes holding anything judged or reported before the cutoff: one index probe per tenant
// and mode (events by scope and time; feedback is small), so a run over thousands of tenants with
// nothing to remove costs one query.
export async function scopesWithDataBefore(db: Queryable, cutoff: Date): Promise<Scope[]> {
  const { rows } = await db.query<{ tenant_id: string; mode: 'live' | 'test' }>(
    `SELECT t.id AS tenant_id, m.mode FROM tenants t CROSS JOIN (VALUES ('live'), ('test')) AS m (mode)
      WHERE EXISTS (SELECT 1 FROM events e WHERE e.tenant_id = t.id AND e.mode = m.mode AND e.created_at < $1)
         OR EXISTS (SELECT 1 FROM feedback f WHERE f.tenant_id = t.id AND f.mode = m.mode AND f.created_at < $1)
      ORDER BY 1, 2`,
    [cutoff],
  );
  return rows.map((r) => ({ tenantId: r.tenant_id, mode: r.mode }));
}
