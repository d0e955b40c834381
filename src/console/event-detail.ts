// What an analyst sees about one event: the event as judged (with the email and the request's
// identifiers and context), the signals the engine saw, its review, the account's earlier
// events and its identity cluster's facts. Reads only; another tenant's or mode's id is a 404.
import type { Scope } from '../scope.js';
import type { ConsoleDeps } from './console-deps.js';
import { eventInputs, findEvent, listEvents, type StoredEvent } from '../events/event-store.js';
import { toWire } from '../events/event-wire.js';
import { AppError } from '../errors.js';
import { findReview } from '../reviews/review-store.js';
import { clusterFacts, eventClusterId, type ClusterFacts } from './cluster-picture.js';

const EARLIER = 20;

// The console's row: the public StoredEvent plus the email (the console is the tenant's own).
export const consoleEvent = (e: StoredEvent): Record<string, unknown> => ({ ...toWire(e), ...(e.email !== undefined && { email: e.email }) });

// The cluster's facts, or null when the event linked nothing yet; a graph that does not answer
// leaves the rest of the page working.
async function clusterOf(deps: Pick<ConsoleDeps, 'graph' | 'cypher' | 'config' | 'logger'>, scope: Scope, eventId: string): Promise<ClusterFacts | null | 'unavailable'> {
  try {
    const id = await eventClusterId(deps, scope, eventId);
    if (!id) return null;
    return (await clusterFacts(deps, scope, id)) ?? null;
  } catch (err) {
    deps.logger.warn({ err: String(err) }, 'console: cluster facts unavailable');
    return 'unavailable';
  }
}

export async function eventDetail(deps: Pick<ConsoleDeps, 'db' | 'graph' | 'cypher' | 'config' | 'logger'>, scope: Scope, eventId: string) {
  const [event, inputs, review] = await Promise.all([findEvent(deps.db, scope, eventId), eventInputs(deps.db, scope, eventId), findReview(deps.db, scope, eventId)]);
  if (!event || !inputs) {
    // An id from the other mode is a common slip (a test event opened in live): say so.
    const other = scope.mode === 'live' ? 'test' : 'live';
    const there = await findEvent(deps.db, { ...scope, mode: other }, eventId);
    throw new AppError('not_found', there ? `No event ${eventId} in ${scope.mode} mode; it exists in ${other} mode (switch modes at the top).` : `No event ${eventId}.`);
  }
  const request = inputs.request as { identity?: unknown; payment?: unknown; ip?: unknown; user_agent?: unknown };
  const [earlier, cluster] = await Promise.all([
    event.externalUserId !== undefined || event.email !== undefined
      // Strictly earlier: keyset before this event's (created_at, id), newest first.
      ? listEvents(deps.db, scope, {
        limit: EARLIER, after: { createdAt: event.createdAt, id: event.id },
        ...(event.externalUserId !== undefined ? { externalUserId: event.externalUserId } : { email: event.email }),
      })
      : Promise.resolve({ events: [], more: false }),
    clusterOf(deps, scope, eventId),
  ]);
  return {
    event: {
      ...consoleEvent(event),
      identity: request.identity ?? {}, payment: request.payment ?? null, ip: request.ip ?? null, user_agent: request.user_agent ?? null,
    },
    signals: inputs.signals,
    review: review && {
      status: review.status, resolved_at: review.resolvedAt?.toISOString() ?? null, resolved_by: review.resolvedBy ?? null, note: review.note ?? null,
      marks_retracted: review.marksRetracted ? { at: review.marksRetracted.at.toISOString(), by: review.marksRetracted.by, note: review.marksRetracted.note } : null,
    },
    earlier: {
      by: event.externalUserId !== undefined ? 'external_user_id' : event.email !== undefined ? 'email' : null,
      events: earlier.events.map(consoleEvent),
    },
    cluster,
  };
}
