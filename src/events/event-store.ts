// SQL for events: the judged event's INSERT (a CTE of the verdict's one statement, which
// verdicts/verdict-store.ts composes: an event is only ever written with its decision), fetch,
// keyset listing and the write-once user binding.
import type { Queryable } from '../db/queryable.js';
import type { EventRecord, Reason, Verdict } from '../event-record.js';
import type { Scope } from '../scope.js';
import { likePrefix } from '../db/like-prefix.js';
import { RECEIVED_EVENT_COLUMNS, receivedEventOf, type ReceivedEvent, type ReceivedEventRow } from './received-event.js';

// The event as a data-modifying CTE of the verdict's one statement (CONVENTIONS.md departure 2):
// inserted for the row of `source` (if any), returning its id. The caller names its parameters.
export function judgedEventCte(p: {
  tenantId: string;
  mode: string;
  id: string;
  eventType: string;
  verdict: string;
  reasons: string;
  policyVersion: string;
  recommendedAction: string;
  createdAt: string;
  externalUserId: string;
  email: string;
  request: string;
  signals: string;
  engineVersion: string;
  source: string;
}): string {
  return `INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version,
    recommended_action, created_at, external_user_id, email, request, signals, engine_version)
  SELECT ${p.tenantId}, ${p.mode}, ${p.id}, ${p.eventType}, ${p.verdict}, ${p.reasons}, ${p.policyVersion}, ${p.recommendedAction}, ${p.createdAt},
    ${p.externalUserId}, ${p.email}, ${p.request}, ${p.signals}, ${p.engineVersion} FROM ${p.source}
  RETURNING id`;
}

// An event as the API lists and fetches it.
export interface StoredEvent extends Omit<EventRecord, 'engineVersion'> {
  context?: Record<string, unknown>;
  // For a `review` verdict: the human resolution, once there is one. The verdict stays as judged.
  review?: { status: 'pending' | 'approved' | 'denied'; resolvedAt?: Date };
}

interface EventRow {
  id: string;
  event_type: string;
  verdict: Verdict;
  reasons: Reason[];
  policy_version: string;
  recommended_action: string | null;
  created_at: Date;
  external_user_id: string | null;
  email: string | null;
  context?: Record<string, unknown> | null;
  review_status: 'pending' | 'approved' | 'denied' | null;
  review_resolved_at: Date | null;
}

// The event, and its review's resolution when it was a `review` (one row at most per event).
const COLUMNS = `e.id, e.event_type, e.verdict, e.reasons, e.policy_version, e.recommended_action, e.created_at,
  e.external_user_id, e.email, e.request->'context' AS context, r.status AS review_status, r.resolved_at AS review_resolved_at`;
const FROM = `events e LEFT JOIN reviews r ON r.tenant_id = e.tenant_id AND r.mode = e.mode AND r.event_id = e.id`;

function fromRow(row: EventRow): StoredEvent {
  return {
    id: row.id,
    eventType: row.event_type,
    verdict: row.verdict,
    reasons: row.reasons,
    policyVersion: row.policy_version,
    recommendedAction: row.recommended_action ?? undefined,
    createdAt: row.created_at,
    externalUserId: row.external_user_id ?? undefined,
    email: row.email ?? undefined,
    context: row.context ?? undefined,
    ...(row.review_status !== null && {
      review: { status: row.review_status, ...(row.review_resolved_at && { resolvedAt: row.review_resolved_at }) },
    }),
  };
}

export async function findEvent(db: Queryable, scope: Scope, id: string): Promise<StoredEvent | undefined> {
  const { rows } = await db.query<EventRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE e.tenant_id = $1 AND e.mode = $2 AND e.id = $3`, [
    scope.tenantId,
    scope.mode,
    id,
  ]);
  return rows[0] && fromRow(rows[0]);
}

// Several events by id (any order; missing ids are left out): the cluster picture's verdicts.
export async function findEvents(db: Queryable, scope: Scope, ids: string[]): Promise<StoredEvent[]> {
  const { rows } = await db.query<EventRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE e.tenant_id = $1 AND e.mode = $2 AND e.id = ANY($3::text[])`,
    [scope.tenantId, scope.mode, ids],
  );
  return rows.map(fromRow);
}

export interface ListFilter {
  limit: number;
  eventType?: string;
  verdict?: Verdict;
  after?: { createdAt: Date; id: string };
  // The analyst console's search adds these (each served by an index of 0003).
  externalUserId?: string;
  email?: string;
  // Each served by an index of migration 0020: the start of an address, its domain, the ip, the card, one
  // identity value (kind and value), a reason code, the review's state ('none': not a review).
  emailPrefix?: string;
  emailDomain?: string;
  // Either: the start of an address or its domain (what a bare word typed in a search means).
  emailStartOrDomain?: string;
  ip?: string;
  cardFingerprint?: string;
  identity?: { kind: string; value: string };
  reason?: string;
  reviewStatus?: 'pending' | 'approved' | 'denied' | 'none';
  // When the review was resolved (the overview's "resolved" counts link here).
  resolvedFrom?: Date;
  resolvedTo?: Date;
  // When the resolution's marks were undone (the overview's "marks undone" count links here).
  marksUndoneFrom?: Date;
  marksUndoneTo?: Date;
  // The events feedback was about (its subject: the event, the account's events, the email's
  // events), reported (or, for 'retracted', retracted) in a window: the overview's feedback counts.
  feedback?: { outcome: 'confirmed_abuse' | 'false_positive' | 'chargeback' | 'retracted'; from: Date; to: Date };
  from?: Date;
  to?: Date;
}

// Newest first; keyset on (created_at, id), never OFFSET, so every page costs the same.
// Fetches one row more than asked to know whether another page exists.
export async function listEvents(db: Queryable, scope: Scope, f: ListFilter): Promise<{ events: StoredEvent[]; more: boolean }> {
  const params: unknown[] = [scope.tenantId, scope.mode];
  const where = ['e.tenant_id = $1', 'e.mode = $2'];
  if (f.eventType) where.push(`e.event_type = $${params.push(f.eventType)}`);
  if (f.verdict) where.push(`e.verdict = $${params.push(f.verdict)}`);
  if (f.externalUserId) where.push(`e.external_user_id = $${params.push(f.externalUserId)}`);
  if (f.email) where.push(`lower(e.email) = lower($${params.push(f.email)})`);
  if (f.emailPrefix) where.push(`lower(e.email) LIKE $${params.push(likePrefix(f.emailPrefix))}`);
  if (f.emailDomain) where.push(`lower(split_part(e.email, '@', 2)) = lower($${params.push(f.emailDomain)})`);
  if (f.emailStartOrDomain) {
    const start = params.push(likePrefix(f.emailStartOrDomain));
    where.push(`(lower(e.email) LIKE $${start} OR lower(split_part(e.email, '@', 2)) = lower($${params.push(f.emailStartOrDomain)}))`);
  }
  if (f.ip) where.push(`e.request ? 'ip' AND e.request->>'ip' = $${params.push(f.ip)}`);
  if (f.cardFingerprint)
    where.push(`e.request ? 'payment' AND e.request->'payment'->>'card_fingerprint' = $${params.push(f.cardFingerprint)}`);
  if (f.identity) where.push(`e.request->'identity' @> $${params.push(JSON.stringify({ [f.identity.kind]: f.identity.value }))}::jsonb`);
  if (f.reason) where.push(`e.reasons @> $${params.push(JSON.stringify([{ code: f.reason }]))}::jsonb`);
  if (f.reviewStatus === 'none') where.push('r.status IS NULL');
  else if (f.reviewStatus) where.push(`r.status = $${params.push(f.reviewStatus)}`);
  if (f.feedback) {
    const o = params.push(f.feedback.outcome);
    const a = params.push(f.feedback.from);
    const b = params.push(f.feedback.to);
    const about = `SELECT subject_kind, subject_value FROM feedback WHERE tenant_id = $1 AND mode = $2
        AND CASE WHEN $${o} = 'retracted' THEN retracted_at >= $${a} AND retracted_at < $${b} ELSE outcome = $${o} AND created_at >= $${a} AND created_at < $${b} END`;
    where.push(`(e.id IN (SELECT subject_value FROM (${about}) s WHERE subject_kind = 'event_id')
      OR e.external_user_id IN (SELECT subject_value FROM (${about}) s WHERE subject_kind = 'external_user_id')
      OR lower(e.email) IN (SELECT lower(subject_value) FROM (${about}) s WHERE subject_kind = 'email'))`);
  }
  if (f.resolvedFrom) where.push(`r.resolved_at >= $${params.push(f.resolvedFrom)}`);
  if (f.resolvedTo) where.push(`r.resolved_at < $${params.push(f.resolvedTo)}`);
  if (f.marksUndoneFrom) where.push(`r.marks_retracted_at >= $${params.push(f.marksUndoneFrom)}`);
  if (f.marksUndoneTo) where.push(`r.marks_retracted_at < $${params.push(f.marksUndoneTo)}`);
  if (f.from) where.push(`e.created_at >= $${params.push(f.from)}`);
  if (f.to) where.push(`e.created_at < $${params.push(f.to)}`);
  if (f.after) {
    const t = params.push(f.after.createdAt);
    const i = params.push(f.after.id);
    where.push(`(e.created_at, e.id) < ($${t}, $${i})`);
  }
  const limit = params.push(f.limit + 1);
  const { rows } = await db.query<EventRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where.join(' AND ')} ORDER BY e.created_at DESC, e.id DESC LIMIT $${limit}`,
    params,
  );
  return { events: rows.slice(0, f.limit).map(fromRow), more: rows.length > f.limit };
}

// What the event was judged on: the request as received and the signals the engine saw.
export async function eventInputs(
  db: Queryable,
  scope: Scope,
  id: string,
): Promise<{ request: Record<string, unknown>; signals: Record<string, unknown> } | undefined> {
  const { rows } = await db.query<{ request: Record<string, unknown>; signals: Record<string, unknown> }>(
    'SELECT request, signals FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3',
    [scope.tenantId, scope.mode, id],
  );
  return rows[0];
}

// The event, read under a row lock (its binding is write-once: PATCH holds the lock until it
// commits, so concurrent PATCHes see each other's value), with what its graph link needs.
export async function lockBinding(tx: Queryable, scope: Scope, id: string): Promise<ReceivedEvent | undefined> {
  const { rows } = await tx.query<ReceivedEventRow>(
    `SELECT ${RECEIVED_EVENT_COLUMNS} FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3 FOR UPDATE`,
    [scope.tenantId, scope.mode, id],
  );
  return rows[0] && receivedEventOf(rows[0]);
}

export async function bindExternalUser(tx: Queryable, scope: Scope, id: string, externalUserId: string): Promise<void> {
  await tx.query('UPDATE events SET external_user_id = $4 WHERE tenant_id = $1 AND mode = $2 AND id = $3', [
    scope.tenantId,
    scope.mode,
    id,
    externalUserId,
  ]);
}
