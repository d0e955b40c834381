// Builds the Express app from its dependencies without listening. Middleware order is the
// verdict flow's: request id and log line, (warm-up gate,) rate limit, authentication, body, route.
import express, { type Express } from 'express';
import type { Deps } from './deps.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { requestLogging } from './http/request-logging.js';
import { requestMetrics } from './http/request-metrics.js';
import { rateLimit } from './http/rate-limit.js';
import { warmGate } from './http/warm-gate.js';
import { optionsNotFound } from './http/options-not-found.js';
import { healthRoutes } from './health/health-routes.js';
import { contractRoutes } from './contract/contract-routes.js';
import { createRequestValidator } from './contract/request-validator.js';
import { deviceCors, deviceRoutes } from './devices/device-routes.js';
import { eventRoutes } from './events/event-routes.js';
import { verdictRoutes } from './verdicts/verdict-routes.js';
import { feedbackRoutes } from './feedback/feedback-routes.js';
import { sdkRoutes } from './devices/sdk-routes.js';
import { demoRoutes } from './devices/demo-routes.js';
import { consoleRoutes } from './console/console-routes.js';

export function createApp(deps: Deps): Express {
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
  app.use(rateLimit(deps));
  app.use(contractRoutes());
  app.use(deviceRoutes(deps, validator));
  app.use(verdictRoutes(deps, validator));
  app.use(eventRoutes(deps, validator));
  app.use(feedbackRoutes(deps, validator));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
