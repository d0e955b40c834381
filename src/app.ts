// Builds the API's request handler from its dependencies without listening: POST /v1/verdict on
// its own route, matched first (src/verdicts/verdict-routes.ts), and every other route on the
// Express app. Middleware order is the verdict flow's: request id and log line, (warm-up gate,)
// rate limit, authentication, body, route; the verdict's route keeps it.
import type http from 'node:http';
import express from 'express';
import type { Deps } from './deps.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { requestLogging } from './http/request-logging.js';
import { requestMetrics } from './http/request-metrics.js';
import { createRateLimiter, rateLimit } from './http/rate-limit.js';
import { createOverloadGate } from './http/overload-gate.js';
import { warmGate } from './http/warm-gate.js';
import { optionsNotFound } from './http/options-not-found.js';
import { healthRoutes } from './health/health-routes.js';
import { contractRoutes } from './contract/contract-routes.js';
import { createRequestValidator } from './contract/request-validator.js';
import { deviceCors, deviceRoutes } from './devices/device-routes.js';
import { eventRoutes } from './events/event-routes.js';
import { verdictRoute } from './verdicts/verdict-routes.js';
import { feedbackRoutes } from './feedback/feedback-routes.js';
import { sdkRoutes } from './devices/sdk-routes.js';
import { demoRoutes } from './devices/demo-routes.js';
import { consoleRoutes } from './console/console-routes.js';

// The API as a request handler (for http.createServer, or supertest in the tests).
export type App = http.RequestListener;

export function createApp(deps: Deps): App {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', deps.config.trustProxy);
  app.use(requestLogging(deps.logger));
  app.use(requestMetrics(deps.metrics));
  // Unmetered: the health probe, CORS preflights (browsers cannot send a key on them), static files.
  // OPTIONS elsewhere is a 404 answered as cheaply.
  app.use(optionsNotFound(['/v1/device']));
  app.use(healthRoutes(deps));
  app.use(warmGate(deps));
  app.use(deviceCors());
  // Static browser files: the SDK always, the demo page only when DEMO_PAGES is on.
  app.use(sdkRoutes());
  if (deps.config.demoPages) app.use(demoRoutes());
  const validator = createRequestValidator();
  // The analyst console: its own session auth and sign-in limits, not the API key's budget.
  app.use(consoleRoutes(deps, validator));
  const limit = createRateLimiter(deps);
  app.use(rateLimit(limit));
  app.use(contractRoutes());
  app.use(deviceRoutes(deps, validator));
  app.use(eventRoutes(deps, validator));
  app.use(feedbackRoutes(deps, validator));
  app.use(notFoundHandler);
  app.use(errorHandler);
  const gate = createOverloadGate(
    { lagMs: deps.config.overloadLagMs, intervalMs: deps.config.overloadIntervalMs, poolWaiting: () => deps.db.waitingCount },
    () => deps.metrics.verdictRefused(),
  );
  const verdict = verdictRoute(deps, validator, { limit, gate, trustProxy: app.get('trust proxy fn') });
  return (req, res) => (verdict.matches(req) ? verdict.serve(req, res) : app(req, res));
}
