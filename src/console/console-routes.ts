// The analyst console under /console: its pages and its JSON API under /console/api. The API
// takes a session cookie and never an API key; every state-changing request must come from our
// own origin and carry the session's CSRF token; every page has a strict CSP.
import { Router, type RequestHandler } from 'express';
import type { ConsoleDeps } from './console-deps.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { consoleAuthRoutes } from './auth/console-auth-routes.js';
import { consoleEventRoutes } from './console-event-routes.js';
import { consoleCypherRoutes } from './console-cypher-routes.js';
import { consoleGraphRoutes } from './console-graph-routes.js';
import { consoleHeaders, requireCsrf, requireSession, sameOriginOnly } from './auth/console-guard.js';
import { consolePages } from './console-pages.js';
import { overviewRoutes } from './overview-routes.js';
import { reviewQueueRoutes } from './review-queue-routes.js';

const noStore: RequestHandler = (_req, res, next) => {
  res.set('cache-control', 'no-store');
  next();
};

// The JSON API, mounted at /console/api: every route it registers is one of the wire's
// (console-wire-schema.ts CONSOLE_ROUTES; the tests hold the two to each other).
export function consoleApi(deps: ConsoleDeps, validator: RequestValidator): Router {
  const api = Router();
  api.use(noStore, sameOriginOnly);
  api.use(consoleAuthRoutes(deps));
  api.use(requireSession(deps), requireCsrf);
  api.use(
    reviewQueueRoutes(deps, validator),
    consoleEventRoutes(deps),
    consoleGraphRoutes(deps),
    consoleCypherRoutes(deps),
    overviewRoutes(deps),
  );
  return api;
}

export function consoleRoutes(deps: ConsoleDeps, validator: RequestValidator): Router {
  const router = Router();
  router.use('/console', consoleHeaders());
  router.use('/console/api', consoleApi(deps, validator));
  router.use(consolePages());
  return router;
}
