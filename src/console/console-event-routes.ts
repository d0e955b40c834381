// /console/api/events: search (event id, external user id, email, ip, card, identity value,
// reason, review state, verdict, type, time range, when a review was resolved or its marks undone; newest first, keyset-paged) and one event's
// detail. HTTP only.
import { Router } from 'express';
import type { ConsoleDeps } from './console-deps.js';
import { decodeCursor, encodeCursor } from '../db/keyset-cursor.js';
import { findEvent, listEvents, type ListFilter } from '../events/event-store.js';
import { consoleValidated } from './console-schemas.js';
import { consoleEvent, eventDetail } from './event-detail.js';
import { accountDetail } from './account-detail.js';
import type { AccountDetail, EventDetail, EventSearchPage } from './generated/console-wire.js';

// What the email box means: a whole address (any case); the start of one, ending in * ("jane*");
// a domain, starting with @ ("@mailinator.com"); a bare word, the start of an address or its
// domain ("mailinator.com", "jane").
export function emailFilter(typed: string | undefined): Pick<ListFilter, 'email' | 'emailPrefix' | 'emailDomain' | 'emailStartOrDomain'> {
  const t = typed?.trim();
  if (!t) return {};
  if (t.endsWith('*')) return t.length > 1 ? { emailPrefix: t.slice(0, -1) } : {};
  if (t.startsWith('@')) return { emailDomain: t.slice(1) };
  if (t.includes('@')) return { email: t };
  return { emailStartOrDomain: t };
}

export function consoleEventRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  router.get('/events', async (req, res) => {
    const q = consoleValidated('EventSearchQuery', { ...(req.query as Record<string, unknown>) }, 'query');
    const scope = req.console!.scope;
    if (q.id) {
      const event = await findEvent(deps.db, scope, q.id);
      res.json({ events: event ? [consoleEvent(event)] : [] } satisfies EventSearchPage);
      return;
    }
    const identity = q.identity
      ? { kind: q.identity.slice(0, q.identity.indexOf('=')).trim(), value: q.identity.slice(q.identity.indexOf('=') + 1).trim() }
      : undefined;
    const page = await listEvents(deps.db, scope, {
      limit: q.limit,
      verdict: q.verdict,
      eventType: q.event_type,
      externalUserId: q.external_user_id,
      ...emailFilter(q.email),
      ip: q.ip,
      cardFingerprint: q.card,
      identity,
      reason: q.reason,
      reviewStatus: q.review,
      resolvedFrom: q.resolved_from ? new Date(q.resolved_from) : undefined,
      resolvedTo: q.resolved_to ? new Date(q.resolved_to) : undefined,
      marksUndoneFrom: q.undone_from ? new Date(q.undone_from) : undefined,
      marksUndoneTo: q.undone_to ? new Date(q.undone_to) : undefined,
      ...(q.feedback && { feedback: { outcome: q.feedback, from: new Date(q.feedback_from!), to: new Date(q.feedback_to!) } }),
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      after: q.cursor ? decodeCursor(q.cursor) : undefined,
    });
    const last = page.events.at(-1);
    res.json({
      events: page.events.map(consoleEvent),
      ...(page.more && last && { next_cursor: encodeCursor({ createdAt: last.createdAt, id: last.id }) }),
    } satisfies EventSearchPage);
  });

  // An account's page: its events, identifiers, cluster and feedback (account-detail.ts).
  router.get('/accounts/:externalId', async (req, res) => {
    res.json((await accountDetail(deps, req.console!.scope, String(req.params.externalId))) satisfies AccountDetail);
  });

  router.get('/events/:id', async (req, res) => {
    res.json((await eventDetail(deps, req.console!.scope, String(req.params.id))) satisfies EventDetail);
  });

  return router;
}
