// Use cases of the console's door: sign in with email and password, set the password through a
// one-time link (which signs in too), find the session a cookie names, sign out. Passwords are
// hashed with argon2id (passwords.ts). The door checks what is cheap first: limits, then
// the link or the account, and hashes only for a request that got that far.
import { inTransaction } from '../../db/queryable.js';
import type { ConsoleAuthDeps } from './console-auth-deps.js';
import { AppError } from '../../errors.js';
import {
  deleteSession,
  deleteSessionsOf,
  findAnalystByEmail,
  findAnalystById,
  findSession,
  findUsableSignInLink,
  insertSession,
  setPasswordHash,
  touchSession,
  useSignInLink,
  voidSignInLinks,
  type Analyst,
  type SessionRow,
} from './analyst-store.js';
import { hashToken, newToken } from './manage-analysts.js';
import { linkTokens } from './link-tokens.js';
import type { SignInLimits } from './sign-in-limits.js';

// A session ends after idle time (CONSOLE_IDLE_MINUTES) or, at the latest, after this.
const SESSION_MAX_HOURS = 12;
// last_seen_at is written at most once a minute per session, not on every request.
const TOUCH_AFTER_MS = 60_000;
export const PASSWORD_MIN = 12;
const PASSWORD_MAX = 256;

type SignInDeps = Pick<ConsoleAuthDeps, 'db' | 'clock' | 'config' | 'passwords'>;

// Verified when the address has no account, so a wrong address costs as long as a wrong password.
let decoyHash: Promise<string> | undefined;
const decoy = (deps: Pick<ConsoleAuthDeps, 'passwords'>) => (decoyHash ??= deps.passwords.hash('decoy password, never valid'));

const linkRefused = () => new AppError('unauthorized', 'This sign-in link is used, expired or unknown; ask an operator for a new one.');

export interface NewSession {
  token: string;
  analyst: Analyst;
}

async function startSession(deps: SignInDeps, analyst: Analyst): Promise<NewSession> {
  const analystId = analyst.id;
  const token = newToken();
  const now = deps.clock.now();
  await insertSession(deps.db, {
    tokenHash: hashToken(token),
    analystId,
    csrfToken: newToken(),
    now,
    expiresAt: new Date(now.getTime() + SESSION_MAX_HOURS * 3_600_000),
  });
  return { token, analyst };
}

// The attempt's points are taken before the password is checked (sign-in-limits.ts), so N
// parallel guesses cannot all be checked against a limit of five.
export async function signIn(
  deps: SignInDeps,
  limits: SignInLimits,
  input: { email: string; password: string; ip: string },
): Promise<NewSession> {
  await limits.attempt(input.email, input.ip);
  const analyst = await findAnalystByEmail(deps.db, input.email.trim());
  const ok = await deps.passwords.verify(analyst?.passwordHash ?? (await decoy(deps)), input.password);
  if (!analyst?.passwordHash || !ok) throw new AppError('unauthorized', 'That email and password do not match an analyst account.');
  await limits.succeeded(input.email);
  return startSession(deps, analyst);
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw AppError.invalid([{ path: '/password', message: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }]);
  }
}

// The one-time link: sets the password and signs in. A used, expired or unknown link is a 401,
// answered before any hashing. Setting the password ends the account's other sessions and voids
// its other links, in the transaction that uses this one.
// A token we issued (its tag checks: link-tokens.ts) takes a point from its link and is looked up
// even when its address has spent the sign-in limit: a new analyst behind a NAT whose neighbours
// spent it gets in. Found used or expired, it then takes the address's point (429 once spent,
// like a guess). Any other token takes the address's point before its lookup, so an address that
// spent its limit gets 429 for it without a lookup. A limited client thus learns whether a
// token is valid only for a link we gave out, by using it; a tag cannot be made without our key.
export async function acceptSignInLink(
  deps: SignInDeps,
  limits: SignInLimits,
  input: { token: string; password: string; ip: string },
): Promise<NewSession> {
  checkPassword(input.password);
  const tokenHash = hashToken(input.token);
  const ours = linkTokens(deps.config.secretsKeys).issuedHere(input.token);
  await (ours ? limits.linkUse(tokenHash) : limits.linkAttempt(input.ip));
  if (!(await findUsableSignInLink(deps.db, tokenHash, deps.clock.now()))) {
    if (ours) await limits.linkAttempt(input.ip);
    throw linkRefused();
  }
  if (!ours) await limits.linkUse(tokenHash);
  const passwordHash = await deps.passwords.hash(input.password);
  const analyst = await inTransaction(deps.db, async (tx) => {
    const analystId = await useSignInLink(tx, tokenHash, deps.clock.now());
    if (!analystId) return undefined;
    await setPasswordHash(tx, analystId, passwordHash);
    await deleteSessionsOf(tx, analystId);
    await voidSignInLinks(tx, analystId);
    return findAnalystById(tx, analystId);
  });
  if (!analyst) throw linkRefused();
  return startSession(deps, analyst);
}

export async function currentSession(
  deps: Pick<ConsoleAuthDeps, 'db' | 'clock' | 'config'>,
  token: string,
): Promise<SessionRow | undefined> {
  const now = deps.clock.now();
  const tokenHash = hashToken(token);
  const session = await findSession(deps.db, tokenHash, now, deps.config.consoleIdleMinutes);
  if (session && now.getTime() - session.lastSeenAt.getTime() > TOUCH_AFTER_MS) await touchSession(deps.db, tokenHash, now);
  return session;
}

export async function signOut(deps: Pick<ConsoleAuthDeps, 'db'>, token: string): Promise<void> {
  await deleteSession(deps.db, hashToken(token));
}
