// SQL for erasing a person (GDPR Art. 17): their events' personal data cleared in place (the
// verdict, reasons' codes, type and time stay, so counts and reports still add up), the webhook
// payloads and receivers' answers about them redacted, their feedback subjects, list entries and
// idempotency records removed, and the erasure logged without values. (Their unapplied outbox rows
// are the graph's to drop: erase-person.ts asks src/graph/graph-outbox.ts.)
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import { RECEIVED_EVENT_COLUMNS, receivedEventOf, type ReceivedEvent, type ReceivedEventRow } from '../events/received-event.js';
import { feedbackMarkKey, type SubjectKind } from '../graph/graph-outbox.js';
import type { MarkOutcome } from '../graph/graph-outbox-store.js';

// The person's events, locked: by account id, or by email (case-insensitive) together with every
// event of the accounts that used it. Those accounts are the person's (their feedback and list
// entries go, and the graph forgets them): their other events must not keep the account id in
// Postgres while the graph forgets it (a rebuild from Postgres would then disagree with the graph).
export async function lockPersonEvents(
  tx: Queryable,
  scope: Scope,
  subject: { kind: 'external_user_id' | 'email'; value: string },
): Promise<ReceivedEvent[]> {
  const where =
    subject.kind === 'external_user_id'
      ? 'external_user_id = $3'
      : `(lower(email) = lower($3) OR external_user_id IN (SELECT external_user_id FROM events
         WHERE tenant_id = $1 AND mode = $2 AND lower(email) = lower($3) AND external_user_id IS NOT NULL))`;
  const { rows } = await tx.query<ReceivedEventRow>(
    `SELECT ${RECEIVED_EVENT_COLUMNS} FROM events WHERE tenant_id = $1 AND mode = $2 AND ${where} ORDER BY created_at FOR UPDATE`,
    [scope.tenantId, scope.mode, subject.value],
  );
  return rows.map(receivedEventOf);
}

// Clears the personal data of these events; reason details that are text (a domain, a list kind)
// go too, numbers stay.
export async function clearEvents(tx: Queryable, scope: Scope, ids: string[]): Promise<number> {
  const { rowCount } = await tx.query(
    `UPDATE events SET email = NULL, external_user_id = NULL,
            request = jsonb_build_object('erased', true),
            signals = jsonb_build_object('eventType', event_type, 'missing', '[]'::jsonb, 'erased', true),
            reasons = (SELECT coalesce(jsonb_agg(CASE WHEN r ? 'detail' THEN jsonb_set(r, '{detail}',
                         (SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM jsonb_each(r->'detail') AS d(k, v) WHERE jsonb_typeof(v) <> 'string'))
                       ELSE r END), '[]'::jsonb) FROM jsonb_array_elements(reasons) AS r)
      WHERE tenant_id = $1 AND mode = $2 AND id = ANY($3)`,
    [scope.tenantId, scope.mode, ids],
  );
  await tx.query('UPDATE reviews SET note = NULL WHERE tenant_id = $1 AND mode = $2 AND event_id = ANY($3)', [
    scope.tenantId,
    scope.mode,
    ids,
  ]);
  // Replays would hand back the stored answer; the records expire in a day anyway.
  await tx.query('DELETE FROM idempotency_keys WHERE tenant_id = $1 AND mode = $2 AND event_id = ANY($3)', [
    scope.tenantId,
    scope.mode,
    ids,
  ]);
  return rowCount ?? 0;
}

// Webhook payloads lose email and external_user_id; a pending delivery is signed over the
// new bytes at its next attempt. What receivers answered is dropped (it may echo the payload).
export async function redactDeliveries(tx: Queryable, scope: Scope, ids: string[]): Promise<number> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE webhook_deliveries SET payload = (payload::jsonb - 'email' - 'external_user_id')::text
      WHERE tenant_id = $1 AND mode = $2 AND event_id = ANY($3) RETURNING id`,
    [scope.tenantId, scope.mode, ids],
  );
  await tx.query('UPDATE webhook_attempts SET response_body = NULL WHERE delivery_id = ANY($1)', [rows.map((r) => r.id)]);
  return rows.length;
}

// Feedback whose subject is one of the person's accounts or emails goes (the subject is the value);
// notes on feedback about their events go. Returns the graph keys of the removed marks.
export async function removeFeedback(
  tx: Queryable,
  scope: Scope,
  p: { accounts: string[]; emails: string[]; eventIds: string[] },
): Promise<string[]> {
  const { rows } = await tx.query<{ subject_kind: string; subject_value: string; outcome: string }>(
    `DELETE FROM feedback WHERE tenant_id = $1 AND mode = $2
        AND ((subject_kind = 'external_user_id' AND subject_value = ANY($3)) OR (subject_kind = 'email' AND lower(subject_value) = ANY($4)))
      RETURNING subject_kind, subject_value, outcome`,
    [scope.tenantId, scope.mode, p.accounts, p.emails.map((e) => e.toLowerCase())],
  );
  await tx.query(
    `UPDATE feedback SET note = NULL WHERE tenant_id = $1 AND mode = $2 AND subject_kind = 'event_id' AND subject_value = ANY($3)`,
    [scope.tenantId, scope.mode, p.eventIds],
  );
  return rows.map((r) => feedbackMarkKey(r.subject_kind as SubjectKind, r.subject_value, r.outcome as MarkOutcome));
}

export async function removeListEntries(tx: Queryable, scope: Scope, entries: { kind: string; value: string }[]): Promise<number> {
  if (entries.length === 0) return 0;
  const { rowCount } = await tx.query(
    `DELETE FROM list_entries WHERE tenant_id = $1 AND mode = $2 AND (kind, value) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
    [scope.tenantId, scope.mode, entries.map((e) => e.kind), entries.map((e) => e.value)],
  );
  return rowCount ?? 0;
}

export interface ErasureRecord {
  id: string;
  subjectKind: 'external_user_id' | 'email';
  requestedBy: string;
  requestedAt: Date;
  events: number;
  webhookDeliveries: number;
  feedback: number;
  listEntries: number;
  velocityMembers: number;
}

export async function logErasure(tx: Queryable, scope: Scope, e: ErasureRecord): Promise<void> {
  await tx.query(
    `INSERT INTO erasures (id, tenant_id, mode, subject_kind, requested_by, requested_at, events, webhook_deliveries, feedback, list_entries, velocity_members)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      e.id,
      scope.tenantId,
      scope.mode,
      e.subjectKind,
      e.requestedBy,
      e.requestedAt,
      e.events,
      e.webhookDeliveries,
      e.feedback,
      e.listEntries,
      e.velocityMembers,
    ],
  );
}

export async function recordGraphCounts(db: Queryable, id: string, counts: { accounts: number; identifiers: number }): Promise<void> {
  await db.query('UPDATE erasures SET accounts = $2, identifiers = $3, graph_applied_at = now() WHERE id = $1', [
    id,
    counts.accounts,
    counts.identifiers,
  ]);
}
