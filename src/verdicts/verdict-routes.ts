// POST /v1/verdict: HTTP only, served on the bare node:http request ahead of Express (src/app.ts
// matches it first), because it is the one route on every caller's critical path. It does what
// Express's chain does for it, in the same order and with the same shared parts: the request id
// and one log line (http/request-logging.ts), the request metric, the overload gate
// (http/overload-gate.ts, first: refusing must cost nothing), the warm-up gate, the rate limit,
// authentication, the JSON body (the same parser), validation against the contract, the use
// case, and errors answered by http/error-handler.ts. The body sent is the exact string the use
// case stored for replay, with a Server-Timing header saying where the time went.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import proxyaddr from 'proxy-addr';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KeyDirectory } from '../tenants/key-directory.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { authenticateKey } from '../http/authenticate.js';
import { errorAnswer } from '../http/error-handler.js';
import { readJsonBody } from '../http/json-body.js';
import type { OverloadGate } from '../http/overload-gate.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { bucketOf } from '../http/rate-limit.js';
import { requestIdFor, requestLineOf } from '../http/request-logging.js';
import { validated } from '../http/validated.js';
import { waitForWarmUp, type WarmGateDeps } from '../http/warm-gate.js';
import { Timings } from '../timings.js';
import { decideVerdict, type DecideVerdictDeps } from './decide-verdict.js';
import { verdictEventOf, type VerdictRequest } from './verdict-request.js';

const VERDICT_ROUTE = '/v1/verdict';

// With tracing on (src/tracing/start-tracing.ts), the route's work is one span under the HTTP
// server's, where Express's routes have the Express instrumentation's; without it, a no-op.
const tracer = trace.getTracer('doorman-http');

// What the verdict route needs: the use case's, and what authenticating and reading the body use.
// The composition root (src/deps.ts) passes its Deps.
export interface VerdictRouteDeps extends DecideVerdictDeps, WarmGateDeps {
  keys: KeyDirectory;
  logger: Logger;
  metrics: Metrics;
  config: Pick<
    Config,
    'signalDeadlineMs' | 'graphDeadlineMs' | 'hubThreshold' | 'bodyLimitBytes' | 'authFailuresPerIp' | 'authFailureWindowSeconds'
  >;
}

// What the app shares with the route: the one rate limiter, the overload gate, and Express's
// compiled `trust proxy` (so the client's address is the one Express's routes see).
export interface VerdictRouteParts {
  limit: RateLimiter;
  gate: OverloadGate;
  trustProxy: (address: string, hop: number) => boolean;
}

export interface VerdictRoute {
  // Whether this request is POST /v1/verdict, matched as Express matches a route (the path without
  // its query, any case, one trailing slash allowed).
  matches(req: IncomingMessage): boolean;
  serve(req: IncomingMessage, res: ServerResponse): void;
}

// Contract §4.1: up to 255 characters; a longer or empty value is ignored as if absent.
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && header.length > 0 && header.length <= 255 ? header : undefined;
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (path.startsWith('/')) return path;
  // The absolute form (`POST http://host/v1/verdict`), which Express routes by its path too.
  try {
    return new URL(path).pathname;
  } catch {
    return path;
  }
}

function isVerdictPath(url: string): boolean {
  const path = pathOf(url);
  if (path === VERDICT_ROUTE) return true;
  const lower = path.toLowerCase();
  return lower === VERDICT_ROUTE || lower === `${VERDICT_ROUTE}/`;
}

export function verdictRoute(deps: VerdictRouteDeps, validator: RequestValidator, parts: VerdictRouteParts): VerdictRoute {
  const readBody = readJsonBody(deps.config.bodyLimitBytes);

  async function handle(req: IncomingMessage, res: ServerResponse, set: (name: string, value: string) => void): Promise<string> {
    parts.gate.admit(set);
    await waitForWarmUp(deps, set);
    const clientAddress = proxyaddr(req, parts.trustProxy);
    await parts.limit(bucketOf(req.headers.authorization, clientAddress), set);
    const { scope, authMs } = await authenticateKey(deps, 'secret', { authorization: req.headers.authorization, clientAddress }, set);
    const { body, raw } = await readBody(req, res);
    const request = validated<VerdictRequest>(validator, 'VerdictRequest', body);
    const timings = new Timings();
    timings.record('auth', authMs);
    const answer = await decideVerdict(deps, scope, {
      request,
      event: verdictEventOf(request),
      rawBody: raw,
      idempotencyKey: idempotencyKeyOf(req.headers['idempotency-key']),
      timings,
    });
    set('Server-Timing', timings.header());
    return answer;
  }

  return {
    matches: (req) => req.method === 'POST' && isVerdictPath(req.url ?? ''),
    serve(req, res) {
      const started = process.hrtime.bigint();
      const startedMs = Date.now();
      const requestId = requestIdFor(req.headers['x-request-id']);
      res.setHeader('X-Request-Id', requestId);
      trace.getActiveSpan()?.setAttribute('http.route', VERDICT_ROUTE);
      let fault: Error | undefined;
      res.once('finish', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        deps.metrics.httpRequest({ route: VERDICT_ROUTE, method: 'POST', status: res.statusCode }, seconds);
      });
      res.once('close', () => {
        const line = requestLineOf(res.statusCode, Boolean(fault));
        deps.logger[line.level](
          {
            request_id: requestId,
            req: { method: 'POST', path: pathOf(req.url ?? '') },
            route: VERDICT_ROUTE,
            res: { status: res.statusCode },
            latency_ms: Date.now() - startedMs,
            ...(fault && { err: fault }),
          },
          line.message,
        );
      });
      const set = (name: string, value: string) => res.setHeader(name, value);
      const handled = tracer.startActiveSpan(`route ${VERDICT_ROUTE}`, { attributes: { 'http.route': VERDICT_ROUTE } }, (span) =>
        handle(req, res, set)
          .catch((err: unknown) => {
            const failed = errorAnswer(err).fault;
            if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: failed.message });
            throw err;
          })
          .finally(() => span.end()),
      );
      handled.then(
        (body) => {
          res.statusCode = 200;
          res.setHeader('Content-Type', 'application/json; charset=utf-8');
          res.setHeader('Content-Length', Buffer.byteLength(body));
          res.end(body);
        },
        (err: unknown) => {
          const answer = errorAnswer(err);
          fault = answer.fault;
          if (res.headersSent) return;
          if (answer.retryAfter && !res.hasHeader('retry-after')) res.setHeader('retry-after', answer.retryAfter);
          const body = JSON.stringify(answer.body);
          res.statusCode = answer.status;
          res.setHeader('Content-Type', 'application/json; charset=utf-8');
          res.setHeader('Content-Length', Buffer.byteLength(body));
          res.end(body);
        },
      );
    },
  };
}
