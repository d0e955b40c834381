// SQL reading a scope's stored history for `doorman graph rebuild` and `doorman graph verify`
// (src/lifecycle/graph-projection.ts): events in judgement order, page by page; the marks that
// stand (feedback not retracted, resolutions whose marks were not undone; few) at once.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import { RECEIVED_EVENT_COLUMNS, receivedEventOf, type ReceivedEvent, type ReceivedEventRow } from '../events/received-event.js';

// Where a page ended: the last event's time exactly as Postgres holds it (microseconds; a JS Date
// keeps milliseconds, and a cursor rounded down would read the page's tail again).
export interface PageEnd {
  at: string;
  id: string;
}

export async function eventsPage(
  db: Queryable,
  scope: Scope,
  after: PageEnd | undefined,
  limit: number,
): Promise<{ events: ReceivedEvent[]; end: PageEnd | undefined }> {
  const { rows } = await db.query<ReceivedEventRow & { at: string }>(
    `SELECT ${RECEIVED_EVENT_COLUMNS}, created_at::text AS at FROM events
      WHERE tenant_id = $1 AND mode = $2 AND ($3::timestamptz IS NULL OR (created_at, id) > ($3::timestamptz, $4))
      ORDER BY created_at, id LIMIT $5`,
    [scope.tenantId, scope.mode, after?.at ?? null, after?.id ?? '', limit],
  );
  const last = rows.at(-1);
  return {
    events: rows.map(receivedEventOf),
    end: last && { at: last.at, id: last.id },
  };
}

export interface StoredOutcome {
  at: Date;
  kind: 'feedback' | 'resolution';
  subjectKind: 'event_id' | 'external_user_id' | 'email';
  value: string;
  outcome: 'confirmed_abuse' | 'false_positive' | 'chargeback';
  // Codes a false_positive suppresses: the subject's events' (feedback) or the review's (resolution).
  codes: string[];
}

// Only what stands: a retracted outcome or an undone resolution's mark is no evidence, so a
// rebuild must not bring it back; nor a mark about an erased event (its feedback row and
// its review stay, without the person: the erasure took the mark out of the graph).
export async function storedOutcomes(db: Queryable, scope: Scope): Promise<StoredOutcome[]> {
  const { rows } = await db.query<{
    at: Date;
    kind: StoredOutcome['kind'];
    subject_kind: StoredOutcome['subjectKind'];
    value: string;
    outcome: StoredOutcome['outcome'];
    codes: string[] | null;
  }>(
    `SELECT f.created_at AS at, 'feedback' AS kind, f.subject_kind, f.subject_value AS value, f.outcome,
            (SELECT array_agg(DISTINCT r->>'code') FROM (SELECT reasons FROM events e
               WHERE e.tenant_id = f.tenant_id AND e.mode = f.mode
                 AND CASE f.subject_kind WHEN 'event_id' THEN e.id = f.subject_value WHEN 'external_user_id' THEN e.external_user_id = f.subject_value
                     ELSE lower(e.email) = lower(f.subject_value) END
               ORDER BY e.created_at DESC LIMIT 100) x, jsonb_array_elements(x.reasons) r) AS codes
       FROM feedback f WHERE f.tenant_id = $1 AND f.mode = $2 AND f.retracted_at IS NULL
        AND NOT (f.subject_kind = 'event_id' AND EXISTS (SELECT 1 FROM events x WHERE x.tenant_id = f.tenant_id AND x.mode = f.mode AND x.id = f.subject_value AND x.request ? 'erased'))
     UNION ALL
     SELECT v.resolved_at, 'resolution', 'event_id', v.event_id, CASE v.status WHEN 'denied' THEN 'confirmed_abuse' ELSE 'false_positive' END,
            CASE v.status WHEN 'approved' THEN (SELECT array_agg(r->>'code') FROM jsonb_array_elements(e.reasons) r) END
       FROM reviews v JOIN events e ON e.tenant_id = v.tenant_id AND e.mode = v.mode AND e.id = v.event_id
      WHERE v.tenant_id = $1 AND v.mode = $2 AND v.status <> 'pending' AND v.marks_retracted_at IS NULL AND NOT e.request ? 'erased'
     ORDER BY 1`,
    [scope.tenantId, scope.mode],
  );
  return rows.map((r) => ({
    at: r.at,
    kind: r.kind,
    subjectKind: r.subject_kind,
    value: r.value,
    outcome: r.outcome,
    codes: r.codes ?? [],
  }));
}

// Which of these event ids Postgres holds (the checker's look for events only the graph has).
export async function storedEventIds(db: Queryable, scope: Scope, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>('SELECT id FROM events WHERE tenant_id = $1 AND mode = $2 AND id = ANY($3::text[])', [
    scope.tenantId,
    scope.mode,
    ids,
  ]);
  return new Set(rows.map((r) => r.id));
}

// Stored events by id, as a rebuild reads them (the checker resolves the events marks are about).
export async function storedEventsByIds(db: Queryable, scope: Scope, ids: string[]): Promise<ReceivedEvent[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ReceivedEventRow>(
    `SELECT ${RECEIVED_EVENT_COLUMNS} FROM events
      WHERE tenant_id = $1 AND mode = $2 AND id = ANY($3::text[])`,
    [scope.tenantId, scope.mode, ids],
  );
  return rows.map(receivedEventOf);
}

// The stored events bound to these accounts (the checker's repair links them again).
export async function storedEventsOfAccounts(db: Queryable, scope: Scope, accounts: string[]): Promise<ReceivedEvent[]> {
  if (accounts.length === 0) return [];
  const { rows } = await db.query<ReceivedEventRow>(
    `SELECT ${RECEIVED_EVENT_COLUMNS} FROM events
      WHERE tenant_id = $1 AND mode = $2 AND external_user_id = ANY($3::text[]) ORDER BY created_at, id`,
    [scope.tenantId, scope.mode, accounts],
  );
  return rows.map(receivedEventOf);
}
