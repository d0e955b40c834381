// /console/api/events: search (event id, external user id, email, verdict, type, time range;
// newest first, keyset-paged) and one event's detail. HTTP only.
import { Router } from 'express';
import type { Deps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../db/keyset-cursor.js';
import { findEvent, listEvents } from '../events/event-store.js';
import type { Verdict } from '../event-record.js';
import { consoleValidated } from './console-schemas.js';
import { consoleEvent, eventDetail } from './event-detail.js';

interface Search {
  id?: string;
  external_user_id?: string;
  email?: string;
  verdict?: Verdict;
  event_type?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

export function consoleEventRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/events', async (req, res) => {
    const q = consoleValidated<Search>('EventSearch', { ...(req.query as Record<string, unknown>) }, 'query');
    const scope = req.console!.scope;
    if (q.id) {
      const event = await findEvent(deps.db, scope, q.id);
      res.json({ events: event ? [consoleEvent(event)] : [] });
      return;
    }
    const page = await listEvents(deps.db, scope, {
      limit: q.limit, verdict: q.verdict, eventType: q.event_type, externalUserId: q.external_user_id, email: q.email,
      from: q.from ? new Date(q.from) : undefined, to: q.to ? new Date(q.to) : undefined,
      after: q.cursor ? decodeCursor(q.cursor) : undefined,
    });
    const last = page.events.at(-1);
    res.json({
      events: page.events.map(consoleEvent),
      ...(page.more && last && { next_cursor: encodeCursor({ createdAt: last.createdAt, id: last.id }) }),
    });
  });

  router.get('/events/:id', async (req, res) => {
    res.json(await eventDetail(deps, req.console!.scope, String(req.params.id)));
  });

  return router;
}
