// GET /v1/events, GET /v1/events/{id}, PATCH /v1/events/{id}: HTTP only; the SQL is in the store.
import { Router, type Request } from 'express';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { textProblem } from '../contract/input-issues.js';
import { authenticate, type AuthDeps } from '../http/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { validated } from '../http/validated.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { findEvent, listEvents } from './event-store.js';
import type { Verdict } from '../event-record.js';
import { decodeCursor, encodeCursor } from '../db/keyset-cursor.js';
import { toWire } from './event-wire.js';
import { attachUser, type EventDeps } from './attach-user.js';

interface ListQuery {
  limit: number;
  event_type?: string;
  verdict?: Verdict;
  cursor?: string;
}

// A path id holding text no stored id can hold (a NUL) names no event: 404 without a query.
function eventIdOf(req: Request): string {
  const id = String(req.params.id);
  if (textProblem(id)) throw new AppError('not_found', 'No such event: the id holds a character no event id has.');
  return id;
}

export function eventRoutes(deps: EventDeps & AuthDeps & { config: Pick<Config, 'bodyLimitBytes'> }, validator: RequestValidator): Router {
  const router = Router();
  const secret = authenticate(deps, 'secret');

  router.get('/v1/events', secret, async (req, res) => {
    // The validator coerces and fills defaults in place: give it a copy of the query.
    const query = validated<ListQuery>(validator, 'EventListQuery', { ...(req.query as Record<string, unknown>) });
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const page = await listEvents(deps.db, req.scope!, { limit: query.limit, eventType: query.event_type, verdict: query.verdict, after });
    const last = page.events.at(-1);
    res.json({
      events: page.events.map(toWire),
      ...(page.more && last && { next_cursor: encodeCursor({ createdAt: last.createdAt, id: last.id }) }),
    });
  });

  router.get('/v1/events/:id', secret, async (req, res) => {
    const id = eventIdOf(req);
    const event = await findEvent(deps.db, req.scope!, id);
    if (!event) throw new AppError('not_found', `No event ${id}.`);
    res.json(toWire(event));
  });

  router.patch('/v1/events/:id', secret, ...jsonBody(deps.config.bodyLimitBytes), async (req, res) => {
    const body = validated<{ external_user_id: string }>(validator, 'AttachUserRequest', req.body);
    const eventId = eventIdOf(req);
    await attachUser(deps, req.scope!, { eventId, externalUserId: body.external_user_id });
    res.json({ ok: true });
  });

  return router;
}
