// Times every request for doorman_http_request_duration_seconds, labelled by route template
// (never the raw path: ids and garbage paths would make a label value each), method and status.
import type { Request, RequestHandler } from 'express';
import type { Metrics } from '../metrics/metrics.js';

const FIXED = new Set([
  '/v1/verdict',
  '/v1/events',
  '/v1/feedback',
  '/v1/device',
  '/health',
  '/v1/openapi.json',
  '/sdk/doorman.js',
  '/sdk/v1/doorman.js',
  '/demo/device',
]);

// The matched route when a router handled it; otherwise (a 429 or 401 before the route, a 404)
// the template the path would have matched, or `other`.
export function routeOf(req: Request): string {
  const matched = (req as Request & { route?: { path?: unknown } }).route?.path;
  if (typeof matched === 'string') return `${req.baseUrl ?? ''}${matched}`;
  const path = req.path;
  if (FIXED.has(path)) return path;
  if (/^\/v1\/events\/[^/]+$/.test(path)) return '/v1/events/:id';
  return 'other';
}

export function requestMetrics(telemetry: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      telemetry.httpRequest({ route: routeOf(req), method: req.method, status: res.statusCode }, seconds);
    });
    next();
  };
}
