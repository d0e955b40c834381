// POST /v1/device: the one browser-facing endpoint. CORS is enabled here and nowhere else, and
// only a publishable key is accepted.
import { Router } from 'express';
import cors from 'cors';
import type { Config } from '../config.js';
import { authenticate, type AuthDeps } from '../http/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { validated } from '../http/validated.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { issueDeviceToken, type DeviceDeps } from './issue-device-token.js';

// Any origin: publishable keys are meant to sit in page source. No cookies are involved.
const browser = cors({
  origin: true,
  methods: ['POST'],
  allowedHeaders: ['Authorization', 'Content-Type'],
  exposedHeaders: ['X-Request-Id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'],
  maxAge: 600,
});

// Mounted before the rate limiter: preflights are answered unmetered (a browser cannot send a
// key on them), and a 429 still carries CORS headers so page scripts can read it.
export function deviceCors(): Router {
  const router = Router();
  router.use('/v1/device', browser);
  return router;
}

export function deviceRoutes(
  deps: Pick<DeviceDeps, 'secrets' | 'clock' | 'config'> & AuthDeps & { config: Pick<Config, 'deviceBodyLimitBytes'> },
  validator: RequestValidator,
): Router {
  const router = Router();
  router.post('/v1/device', authenticate(deps, 'publishable'), ...jsonBody(deps.config.deviceBodyLimitBytes), async (req, res) => {
    const body = validated<{ components: Record<string, unknown> }>(validator, 'DeviceRequest', req.body);
    const result = await issueDeviceToken(deps, req.scope!, body.components);
    res.json({ device_token: result.deviceToken, expires_at: result.expiresAt.toISOString() });
  });
  return router;
}
