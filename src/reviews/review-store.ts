// SQL for reviews: the queue of `review` verdicts (a row is written with the event) and their
// resolution, stored once.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { Reason } from '../event-record.js';
import { likePrefix } from '../db/like-prefix.js';

export type Resolution = 'approved' | 'denied';

// A `review` verdict's pending review, as a data-modifying CTE of the verdict's one statement
// (CONVENTIONS.md departure 2): for the event `source` returns, when the verdict is review.
export function pendingReviewCte(p: { tenantId: string; mode: string; createdAt: string; verdict: string; source: string }): string {
  return `INSERT INTO reviews (tenant_id, mode, event_id, created_at)
  SELECT ${p.tenantId}, ${p.mode}, id, ${p.createdAt} FROM ${p.source} WHERE ${p.verdict} = 'review'`;
}

export interface PendingReview {
  eventId: string;
  eventType: string;
  reasons: Reason[];
  createdAt: Date;
  externalUserId?: string;
  email?: string;
  policyVersion: string;
}

// Oldest first; keyset-paged on (created_at, event_id) by the partial index on pending reviews.
// The queue's filters (the console's): the event type, a reason code, how long it has waited,
// and text matching the start of the external user id or of the email, or the email's domain.
export interface QueueFilter {
  eventType?: string;
  reason?: string;
  queuedBefore?: Date;
  queuedAfter?: Date;
  text?: string;
}

export async function listPendingReviews(
  db: Queryable,
  scope: Scope,
  limit: number,
  after?: { createdAt: Date; eventId: string },
  f: QueueFilter = {},
): Promise<PendingReview[]> {
  const params: unknown[] = [scope.tenantId, scope.mode, limit, after?.createdAt ?? null, after?.eventId ?? null];
  const where = filterSql(f, params);
  const { rows } = await db.query<{
    event_id: string;
    event_type: string;
    reasons: Reason[];
    created_at: Date;
    external_user_id: string | null;
    email: string | null;
    policy_version: string;
  }>(
    `SELECT r.event_id, e.event_type, e.reasons, r.created_at, e.external_user_id, e.email, e.policy_version
       FROM reviews r JOIN events e ON e.tenant_id = r.tenant_id AND e.mode = r.mode AND e.id = r.event_id
      WHERE r.tenant_id = $1 AND r.mode = $2 AND r.status = 'pending'
        AND ($4::timestamptz IS NULL OR (r.created_at, r.event_id) > ($4, $5))${where.map((w) => `\n        AND ${w}`).join('')}
      ORDER BY r.created_at, r.event_id LIMIT $3`,
    params,
  );
  return rows.map((r) => ({
    eventId: r.event_id,
    eventType: r.event_type,
    reasons: r.reasons,
    createdAt: r.created_at,
    externalUserId: r.external_user_id ?? undefined,
    email: r.email ?? undefined,
    policyVersion: r.policy_version,
  }));
}

export interface ReviewForResolution {
  status: 'pending' | Resolution;
  eventType: string;
  reasons: Reason[];
  policyVersion: string;
  externalUserId?: string;
  email?: string;
  // The person was erased: the resolution stands, and makes no mark about them.
  erased: boolean;
}

// The event and its review, the review row locked until the resolving transaction ends (a second
// resolution waits, then sees the first), so two resolutions of one review cannot both succeed.
// `event: false` when there is no such event in the scope; no `review` when it was not one.
export async function lockReviewForResolution(
  tx: Queryable,
  scope: Scope,
  eventId: string,
): Promise<{ event: boolean; review?: ReviewForResolution }> {
  // The event is locked too: an erasure (which locks the person's events) is either done before,
  // and seen here, or waits until this resolution committed, and then takes its mark back.
  const { rows } = await tx.query<{
    status: ReviewForResolution['status'];
    event_type: string;
    reasons: Reason[];
    policy_version: string;
    external_user_id: string | null;
    email: string | null;
    erased: boolean;
  }>(
    `SELECT r.status, e.event_type, e.reasons, e.policy_version, e.external_user_id, e.email, e.request ? 'erased' AS erased
       FROM reviews r JOIN events e ON e.tenant_id = r.tenant_id AND e.mode = r.mode AND e.id = r.event_id
      WHERE r.tenant_id = $1 AND r.mode = $2 AND r.event_id = $3
      FOR UPDATE OF r, e`,
    [scope.tenantId, scope.mode, eventId],
  );
  const row = rows[0];
  if (!row) {
    const event = await tx.query('SELECT 1 FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3', [
      scope.tenantId,
      scope.mode,
      eventId,
    ]);
    return { event: event.rows.length > 0 };
  }
  return {
    event: true,
    review: {
      status: row.status,
      eventType: row.event_type,
      reasons: row.reasons,
      policyVersion: row.policy_version,
      externalUserId: row.external_user_id ?? undefined,
      email: row.email ?? undefined,
      erased: row.erased,
    },
  };
}

export async function markResolved(
  tx: Queryable,
  scope: Scope,
  eventId: string,
  r: { resolution: Resolution; resolvedAt: Date; resolvedBy: string; note?: string },
): Promise<void> {
  await tx.query(
    `UPDATE reviews SET status = $4, resolved_at = $5, resolved_by = $6, note = $7
      WHERE tenant_id = $1 AND mode = $2 AND event_id = $3 AND status = 'pending'`,
    [scope.tenantId, scope.mode, eventId, r.resolution, r.resolvedAt, r.resolvedBy, r.note ?? null],
  );
}

// The queue's size and its oldest entry (the partial index on pending reviews answers both).
// The conditions of the queue's filters on `r` (reviews) and `e` (events), their values added to
// `params`.
function filterSql(f: QueueFilter, params: unknown[]): string[] {
  const where: string[] = [];
  if (f.eventType) where.push(`e.event_type = $${params.push(f.eventType)}`);
  if (f.reason) where.push(`e.reasons @> $${params.push(JSON.stringify([{ code: f.reason }]))}::jsonb`);
  if (f.queuedBefore) where.push(`r.created_at < $${params.push(f.queuedBefore)}`);
  if (f.queuedAfter) where.push(`r.created_at >= $${params.push(f.queuedAfter)}`);
  if (f.text) {
    const start = params.push(likePrefix(f.text));
    const whole = params.push(f.text.toLowerCase().replace(/^@/, ''));
    where.push(
      `(lower(e.external_user_id) LIKE $${start} OR lower(e.email) LIKE $${start} OR lower(split_part(e.email, '@', 2)) = $${whole})`,
    );
  }
  return where;
}

// How many reviews wait and since when; under the queue's filters, those that match them.
export async function reviewBacklog(db: Queryable, scope: Scope, f: QueueFilter = {}): Promise<{ pending: number; oldest: Date | null }> {
  const params: unknown[] = [scope.tenantId, scope.mode];
  const where = filterSql(f, params);
  const { rows } = await db.query<{ pending: number; oldest: Date | null }>(
    `SELECT count(*)::int AS pending, min(r.created_at) AS oldest FROM reviews r${
      where.length ? '\n       JOIN events e ON e.tenant_id = r.tenant_id AND e.mode = r.mode AND e.id = r.event_id' : ''
    }
      WHERE r.tenant_id = $1 AND r.mode = $2 AND r.status = 'pending'${where.map((w) => `\n        AND ${w}`).join('')}`,
    params,
  );
  return { pending: rows[0]?.pending ?? 0, oldest: rows[0]?.oldest ?? null };
}

export interface ReviewState {
  status: 'pending' | Resolution;
  resolvedAt?: Date;
  resolvedBy?: string;
  note?: string;
  // The resolution's graph mark taken back (undo): when, by whom, why.
  marksRetracted?: { at: Date; by: string; note: string };
}

export async function findReview(db: Queryable, scope: Scope, eventId: string): Promise<ReviewState | undefined> {
  const { rows } = await db.query<{
    status: ReviewState['status'];
    resolved_at: Date | null;
    resolved_by: string | null;
    note: string | null;
    marks_retracted_at: Date | null;
    marks_retracted_by: string | null;
    marks_retract_note: string | null;
  }>(
    `SELECT status, resolved_at, resolved_by, note, marks_retracted_at, marks_retracted_by, marks_retract_note
       FROM reviews WHERE tenant_id = $1 AND mode = $2 AND event_id = $3`,
    [scope.tenantId, scope.mode, eventId],
  );
  const r = rows[0];
  return (
    r && {
      status: r.status,
      resolvedAt: r.resolved_at ?? undefined,
      resolvedBy: r.resolved_by ?? undefined,
      note: r.note ?? undefined,
      ...(r.marks_retracted_at && {
        marksRetracted: { at: r.marks_retracted_at, by: r.marks_retracted_by ?? '', note: r.marks_retract_note ?? '' },
      }),
    }
  );
}

// Records that a resolution's marks were taken back; false when the review is not resolved or
// its marks were taken back already (nothing changes). The statement locks the row it changes.
export async function markReviewMarksRetracted(
  tx: Queryable,
  scope: Scope,
  eventId: string,
  at: Date,
  by: string,
  note: string,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE reviews SET marks_retracted_at = $4, marks_retracted_by = $5, marks_retract_note = $6
      WHERE tenant_id = $1 AND mode = $2 AND event_id = $3 AND status <> 'pending' AND marks_retracted_at IS NULL`,
    [scope.tenantId, scope.mode, eventId, at, by, note],
  );
  return rowCount === 1;
}
