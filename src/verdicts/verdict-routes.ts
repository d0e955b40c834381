// POST /v1/verdict: HTTP only. Validation, the body mapped to the event it asks about, then the
// use case; the body sent is the exact string the use case stored for replay, with a
// Server-Timing header saying where the time went.
import { Router } from 'express';
import type { Config } from '../config.js';
import type { KeyDirectory } from '../tenants/key-directory.js';
import { authenticate } from '../http/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { Timings } from '../timings.js';
import { validated } from '../http/validated.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { decideVerdict, type DecideVerdictDeps } from './decide-verdict.js';
import { verdictEventOf, type VerdictRequest } from './verdict-request.js';

// What the verdict route needs: the use case's, and what authenticating and reading the body use.
// The composition root (src/deps.ts) passes its Deps.
export interface VerdictRouteDeps extends DecideVerdictDeps {
  keys: KeyDirectory;
  config: Pick<Config, 'signalDeadlineMs' | 'hubThreshold' | 'bodyLimitBytes' | 'authFailuresPerIp' | 'authFailureWindowSeconds'>;
}

// Contract §4.1: up to 255 characters; a longer or empty value is ignored as if absent.
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  return header && header.length <= 255 ? header : undefined;
}

export function verdictRoutes(deps: VerdictRouteDeps, validator: RequestValidator): Router {
  const router = Router();
  router.post('/v1/verdict', authenticate(deps, 'secret'), ...jsonBody(deps.config.bodyLimitBytes), async (req, res) => {
    const request = validated<VerdictRequest>(validator, 'VerdictRequest', req.body);
    const timings = new Timings();
    if (req.authMs !== undefined) timings.record('auth', req.authMs);
    const body = await decideVerdict(deps, req.scope!, {
      request,
      event: verdictEventOf(request),
      rawBody: req.rawBody ?? Buffer.alloc(0),
      idempotencyKey: idempotencyKeyOf(req.get('idempotency-key')),
      timings,
    });
    res.set('Server-Timing', timings.header()).type('application/json').send(body);
  });
  return router;
}
