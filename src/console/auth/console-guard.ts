// The console's guards: security headers (a strict Content-Security-Policy: nothing inline,
// nothing from another origin), the session cookie, CSRF checks and roles. API keys are never
// accepted here, and the cookie (Path=/console) never reaches /v1.
import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { parseCookie } from 'cookie';
import type { Scope } from '../../scope.js';
import type { ConsoleAuthDeps } from './console-auth-deps.js';
import { AppError } from '../../errors.js';
import type { Role } from '../../roles.js';
import type { Analyst } from './analyst-store.js';
import { currentSession } from './sign-in.js';

export const COOKIE = 'doorman_console';

export interface ConsoleSession {
  token: string;
  analyst: Analyst;
  tenantName: string;
  csrfToken: string;
  scope: Scope;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      // Set by requireSession(): who is signed in, and the tenant and mode they look at.
      console?: ConsoleSession;
    }
  }
}

export function consoleHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'report-sample'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // Our own origin only: no other site may read our responses or embed our pages.
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
  });
}

export function setSessionCookie(deps: Pick<ConsoleAuthDeps, 'config'>, req: Request, res: Response, token: string | null): void {
  const options = {
    httpOnly: true,
    sameSite: 'strict' as const,
    path: '/console',
    secure: deps.config.publicUrl.startsWith('https:') || req.secure,
  };
  if (token === null) res.clearCookie(COOKIE, options);
  else res.cookie(COOKIE, token, options);
}

export const sessionToken = (req: Request): string | undefined => parseCookie(req.get('cookie') ?? '')[COOKIE];

// Fetch metadata and Origin: a state-changing request must come from our own pages. Browsers
// send Sec-Fetch-Site and Origin on every POST; a form on another origin (even another port of
// this host, which SameSite=Strict does not stop) is refused before anything is read.
export const sameOriginOnly: RequestHandler = (req, _res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  const site = req.get('sec-fetch-site');
  if (site && site !== 'same-origin') throw new AppError('forbidden', 'Cross-site requests are refused.');
  const origin = req.get('origin');
  if (origin && origin !== `${req.protocol}://${req.get('host')}`) throw new AppError('forbidden', 'Cross-origin requests are refused.');
  next();
};

export function requireSession(deps: Pick<ConsoleAuthDeps, 'db' | 'clock' | 'config'>): RequestHandler {
  return async (req, _res, next) => {
    if (req.get('authorization')) throw new AppError('unauthorized', 'The console takes no API keys; sign in at /console/sign-in.');
    const token = sessionToken(req);
    const found = token ? await currentSession(deps, token) : undefined;
    if (!token || !found) throw new AppError('unauthorized', 'Not signed in, or the session has ended; sign in at /console/sign-in.');
    req.console = { token, ...found, scope: { tenantId: found.analyst.tenantId, mode: found.analyst.mode } };
    next();
  };
}

// Synchronizer token: every state-changing request carries the session's CSRF token in a
// header, which only our own script (same origin) can read from /console/api/me and set.
export const requireCsrf: RequestHandler = (req, _res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  const sent = Buffer.from(req.get('x-csrf-token') ?? '');
  const expected = Buffer.from(req.console!.csrfToken);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) throw new AppError('forbidden', 'Missing or wrong CSRF token.');
  next();
};

export const requireRole =
  (role: Role): RequestHandler =>
  (req, _res, next) => {
    if (role === 'admin' && req.console!.analyst.role !== 'admin')
      throw new AppError('forbidden', 'Only an admin of this tenant may do this.');
    next();
  };
