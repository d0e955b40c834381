// /console/api/sign-in, /welcome (the one-time link), /sign-out, /me and /mode: HTTP only.
import { Router, type Request, type Response } from 'express';
import type { ConsoleAuthDeps } from './console-auth-deps.js';
import { AppError } from '../../errors.js';
import { jsonBody } from '../../http/json-body.js';
import { setAnalystMode, type Analyst } from './analyst-store.js';
import { actorOf, audit } from '../../audit/audit-store.js';
import { requireCsrf, requireSession, setSessionCookie } from './console-guard.js';
import { consoleValidated } from '../console-schemas.js';
import type { Me, ModeSwitched, Ok } from '../generated/console-wire.js';
import { signInLimits } from './sign-in-limits.js';
import { acceptSignInLink, signIn, signOut } from './sign-in.js';

const BODY_LIMIT = 16 * 1024;
const clientIp = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

// A 429 says when to come back, in the header the API's 429 uses too.
async function withRetryAfter<T>(res: Response, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    const retry = err instanceof AppError ? err.details?.retry_after_seconds : undefined;
    if (typeof retry === 'number') res.set('retry-after', String(retry));
    throw err;
  }
}

export function consoleAuthRoutes(deps: ConsoleAuthDeps): Router {
  const router = Router();
  const limits = signInLimits(deps);
  const session = requireSession(deps);
  const signedIn = (a: Analyst, action: string) =>
    audit(deps.db, { tenantId: a.tenantId, mode: a.mode, analystId: a.id, analystEmail: a.email }, action, null);

  router.post('/sign-in', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated('SignInBody', req.body);
    const started = await withRetryAfter(res, signIn(deps, limits, { ...body, ip: clientIp(req) }));
    await signedIn(started.analyst, 'sign_in');
    setSessionCookie(deps, req, res, started.token);
    res.json({ ok: true } satisfies Ok);
  });

  router.post('/welcome', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated('WelcomeBody', req.body);
    const started = await withRetryAfter(res, acceptSignInLink(deps, limits, { ...body, ip: clientIp(req) }));
    await signedIn(started.analyst, 'sign_in.link');
    setSessionCookie(deps, req, res, started.token);
    res.json({ ok: true } satisfies Ok);
  });

  router.post('/sign-out', session, requireCsrf, async (req, res) => {
    await audit(deps.db, actorOf(req.console!), 'sign_out', null);
    await signOut(deps, req.console!.token);
    setSessionCookie(deps, req, res, null);
    res.json({ ok: true } satisfies Ok);
  });

  router.get('/me', session, (req, res) => {
    const { analyst, tenantName, csrfToken } = req.console!;
    res.json({
      analyst_id: analyst.id,
      email: analyst.email,
      role: analyst.role,
      tenant_id: analyst.tenantId,
      tenant_name: tenantName,
      mode: analyst.mode,
      csrf_token: csrfToken,
      idle_minutes: deps.config.consoleIdleMinutes,
    } satisfies Me);
  });

  // The live/test switch, remembered for the account.
  router.post('/mode', session, requireCsrf, ...jsonBody(BODY_LIMIT), async (req, res) => {
    const { mode } = consoleValidated('ModeBody', req.body);
    const { analyst } = req.console!;
    await setAnalystMode(deps.db, analyst.id, mode);
    await audit(deps.db, actorOf({ analyst, scope: { tenantId: analyst.tenantId, mode } }), 'mode.switch', mode);
    res.json({ ok: true, mode } satisfies ModeSwitched);
  });

  return router;
}
