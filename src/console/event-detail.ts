// What an analyst sees about one event: the event as judged (with the email and the request's
// identifiers and context), the signals the engine saw, its review, the account's earlier
// events and its identity cluster's facts. Reads only; another tenant's or mode's id is a 404.
import type { Scope } from '../scope.js';
import type { ConsoleDeps } from './console-deps.js';
import { eventInputs, findEvent, listEvents, type StoredEvent } from '../events/event-store.js';
import { AppError } from '../errors.js';
import { findReview } from '../reviews/review-store.js';
import { clusterFacts, eventClusterId } from './cluster-picture.js';
import type { ClusterFacts, EventDetail, EventRow } from './generated/console-wire.js';

const EARLIER = 20;

// The console's row: the public StoredEvent (events/event-wire.ts, field for field) plus the email
// (the console is the tenant's own), typed by the console's wire.
export const consoleEvent = (e: StoredEvent): EventRow => ({
  id: e.id,
  event_type: e.eventType,
  verdict: e.verdict,
  reasons: e.reasons,
  policy_version: e.policyVersion,
  created_at: e.createdAt.toISOString(),
  ...(e.externalUserId !== undefined && { external_user_id: e.externalUserId }),
  ...(e.recommendedAction !== undefined && { recommended_action: e.recommendedAction }),
  ...(e.context !== undefined && { context: e.context }),
  ...(e.review && {
    review: {
      status: e.review.status,
      ...(e.review.status !== 'pending' && { final_verdict: e.review.status === 'denied' ? ('block' as const) : ('allow' as const) }),
      ...(e.review.resolvedAt && { resolved_at: e.review.resolvedAt.toISOString() }),
    },
  }),
  ...(e.email !== undefined && { email: e.email }),
});

// The cluster's facts, or null when the event linked nothing yet; a graph that does not answer
// leaves the rest of the page working.
async function clusterOf(
  deps: Pick<ConsoleDeps, 'graph' | 'cypher' | 'config' | 'logger'>,
  scope: Scope,
  eventId: string,
): Promise<ClusterFacts | null | 'unavailable'> {
  try {
    const id = await eventClusterId(deps, scope, eventId);
    if (!id) return null;
    return (await clusterFacts(deps, scope, id)) ?? null;
  } catch (err) {
    deps.logger.warn({ err: String(err) }, 'console: cluster facts unavailable');
    return 'unavailable';
  }
}

export async function eventDetail(
  deps: Pick<ConsoleDeps, 'db' | 'graph' | 'cypher' | 'config' | 'logger'>,
  scope: Scope,
  eventId: string,
): Promise<EventDetail> {
  const [event, inputs, review] = await Promise.all([
    findEvent(deps.db, scope, eventId),
    eventInputs(deps.db, scope, eventId),
    findReview(deps.db, scope, eventId),
  ]);
  if (!event || !inputs) {
    // An id from the other mode is a common slip (a test event opened in live): say so.
    const other = scope.mode === 'live' ? 'test' : 'live';
    const there = await findEvent(deps.db, { ...scope, mode: other }, eventId);
    throw new AppError(
      'not_found',
      there ? `No event ${eventId} in ${scope.mode} mode; it exists in ${other} mode (switch modes at the top).` : `No event ${eventId}.`,
    );
  }
  // The request as stored, after the public contract validated it.
  const request = inputs.request as {
    identity?: Record<string, string>;
    payment?: Record<string, unknown>;
    ip?: string;
    user_agent?: string;
  };
  const [earlier, cluster] = await Promise.all([
    event.externalUserId !== undefined || event.email !== undefined
      ? // Strictly earlier: keyset before this event's (created_at, id), newest first.
        listEvents(deps.db, scope, {
          limit: EARLIER,
          after: { createdAt: event.createdAt, id: event.id },
          ...(event.externalUserId !== undefined ? { externalUserId: event.externalUserId } : { email: event.email }),
        })
      : Promise.resolve({ events: [], more: false }),
    clusterOf(deps, scope, eventId),
  ]);
  return {
    event: {
      ...consoleEvent(event),
      identity: request.identity ?? {},
      payment: request.payment ?? null,
      ip: request.ip ?? null,
      user_agent: request.user_agent ?? null,
    },
    signals: inputs.signals,
    // Absent (undefined) when the event was never a review.
    review: review && {
      status: review.status,
      resolved_at: review.resolvedAt?.toISOString() ?? null,
      resolved_by: review.resolvedBy ?? null,
      note: review.note ?? null,
      marks_retracted: review.marksRetracted
        ? { at: review.marksRetracted.at.toISOString(), by: review.marksRetracted.by, note: review.marksRetracted.note }
        : null,
    },
    earlier: {
      by: event.externalUserId !== undefined ? 'external_user_id' : event.email !== undefined ? 'email' : null,
      events: earlier.events.map(consoleEvent),
    },
    cluster,
  };
}
