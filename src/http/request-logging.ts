// One structured log line per request (method, route, status, latency, request id), and the
// request id echoed in X-Request-Id. Headers are not logged: they carry API keys.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { newId } from '../db/new-id.js';

const INBOUND_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const inbound = req.headers['x-request-id'];
      const id = typeof inbound === 'string' && INBOUND_ID.test(inbound) ? inbound : newId('req');
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
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request failed',
    quietReqLogger: true,
  });
}
