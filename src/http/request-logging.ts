// One structured log line per request (method, route, status, latency, request id), and the
// request id echoed in X-Request-Id. Headers are not logged: they carry API keys.
// Levels an operator can alert on: a 5xx is `error`, with the stack of the error behind it (the
// error handler hands it over as res.err); a 503 (warming up, or /health reporting a store down)
// is `warn` without a stack, since it is the service saying what it is; a 4xx is the caller's and
// `info`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { newId } from '../db/new-id.js';

const INBOUND_ID = /^[A-Za-z0-9._-]{1,128}$/;

// The caller's X-Request-Id when it is a plain token, else a new one.
export function requestIdFor(inbound: string | string[] | undefined): string {
  return typeof inbound === 'string' && INBOUND_ID.test(inbound) ? inbound : newId('req');
}

// The level and message of a request's one line (the verdict's own route writes its line with these).
export function requestLineOf(status: number, fault: boolean): { level: 'info' | 'warn' | 'error'; message: string } {
  if (status === 503 && !fault) return { level: 'warn', message: 'request answered 503 unavailable' };
  if (fault || status >= 500) return { level: 'error', message: status === 503 ? 'request answered 503 unavailable' : 'request failed' };
  return { level: 'info', message: 'request' };
}

export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = requestIdFor(req.headers['x-request-id']);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customAttributeKeys: { reqId: 'request_id', responseTime: 'latency_ms' },
    serializers: {
      req: (req: { method: string; url: string; raw?: { route?: { path?: string }; baseUrl?: string } }) => ({
        method: req.method,
        // The path without the query string: a cursor or filter is not for the log.
        path: req.url.split('?')[0],
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customProps: (req) => {
      const r = req as IncomingMessage & { route?: { path?: string }; baseUrl?: string };
      return r.route?.path ? { route: `${r.baseUrl ?? ''}${r.route.path}` } : {};
    },
    customLogLevel: (_req, res, err) => requestLineOf(res.statusCode, Boolean(err)).level,
    customSuccessMessage: () => 'request',
    customErrorMessage: (_req, res) => (res.statusCode === 503 ? 'request answered 503 unavailable' : 'request failed'),
    // pino-http invents an error ("failed with status code 503") for any 5xx without one; a 503
    // is not a fault, so its line carries no stack.
    customErrorObject: (_req, res, _err, value: Record<string, unknown>) => {
      if (res.statusCode !== 503 || (res as ServerResponse & { err?: unknown }).err) return value;
      const { err: _invented, ...rest } = value;
      return rest;
    },
    quietReqLogger: true,
  });
}
