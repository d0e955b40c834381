// Use cases of the console's door: sign in with email and password, set the password through a
// one-time link (which signs in too), find the session a cookie names, sign out. Passwords are
// hashed with argon2id (@node-rs/argon2, its defaults: 19 MiB, 2 passes, the OWASP minimum).
import { hash, verify } from '@node-rs/argon2';
import type { Deps } from '../deps.js';
import { AppError } from '../http/app-error.js';
import {
  deleteSession, findAnalystByEmail, findAnalystById, findSession, insertSession, setPasswordHash, touchSession, useSignInLink, type Analyst, type SessionRow,
} from './analyst-store.js';
import { hashToken, newToken } from './manage-analysts.js';
import type { SignInLimits } from './sign-in-limits.js';

// A session ends after idle time (CONSOLE_IDLE_MINUTES) or, at the latest, after this.
const SESSION_MAX_HOURS = 12;
// last_seen_at is written at most once a minute per session, not on every request.
const TOUCH_AFTER_MS = 60_000;
export const PASSWORD_MIN = 12;
const PASSWORD_MAX = 256;

type SignInDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

// Verified when the address has no account, so a wrong address costs as long as a wrong password.
const DECOY_HASH = hash('decoy password, never valid');

export interface NewSession {
  token: string;
  analyst: Analyst;
}

async function startSession(deps: SignInDeps, analyst: Analyst): Promise<NewSession> {
  const analystId = analyst.id;
  const token = newToken();
  const now = deps.clock.now();
  await insertSession(deps.db, {
    tokenHash: hashToken(token), analystId, csrfToken: newToken(), now, expiresAt: new Date(now.getTime() + SESSION_MAX_HOURS * 3_600_000),
  });
  return { token, analyst };
}

export async function signIn(deps: SignInDeps, limits: SignInLimits, input: { email: string; password: string; ip: string }): Promise<NewSession> {
  await limits.attempt(input.email, input.ip);
  const analyst = await findAnalystByEmail(deps.db, input.email.trim());
  const ok = await verify(analyst?.passwordHash ?? (await DECOY_HASH), input.password).catch(() => false);
  if (!analyst?.passwordHash || !ok) {
    await limits.failed(input.email);
    throw new AppError('unauthorized', 'That email and password do not match an analyst account.');
  }
  await limits.succeeded(input.email);
  return startSession(deps, analyst);
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw AppError.invalid([{ path: '/password', message: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }]);
  }
}

// The one-time link: sets the password and signs in. A used, expired or unknown link is a 401.
export async function acceptSignInLink(deps: SignInDeps, input: { token: string; password: string }): Promise<NewSession> {
  checkPassword(input.password);
  const passwordHash = await hash(input.password);
  const analystId = await useSignInLink(deps.db, hashToken(input.token), deps.clock.now());
  if (!analystId) throw new AppError('unauthorized', 'This sign-in link is used, expired or unknown; ask an operator for a new one.');
  await setPasswordHash(deps.db, analystId, passwordHash);
  const analyst = await findAnalystById(deps.db, analystId);
  if (!analyst) throw new AppError('unauthorized', 'This analyst account was removed.');
  return startSession(deps, analyst);
}

export async function currentSession(deps: SignInDeps, token: string): Promise<SessionRow | undefined> {
  const now = deps.clock.now();
  const tokenHash = hashToken(token);
  const session = await findSession(deps.db, tokenHash, now, deps.config.consoleIdleMinutes);
  if (session && now.getTime() - session.lastSeenAt.getTime() > TOUCH_AFTER_MS) await touchSession(deps.db, tokenHash, now);
  return session;
}

export async function signOut(deps: Pick<Deps, 'db'>, token: string): Promise<void> {
  await deleteSession(deps.db, hashToken(token));
}
