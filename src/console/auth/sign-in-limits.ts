// The console door's limits, on the shared Redis limiter (rate-limiter-flexible, like the API's),
// in fixed 15-minute windows: a sign-in counts against the client IP (an IPv6 client by its /64)
// and the account; a one-time link's use counts against the link, and against the IP unless it
// is a link of ours that can still be used (sign-in.ts), so a new analyst is not refused for what
// others behind the same address spent. Points are taken before the password is checked,
// atomically, so parallel attempts cannot all slip under the limit; a successful sign-in gives
// the account's back. Redis down: an in-memory limiter per instance takes over, as for the API.
// Keys are `console-sign-in:ip:<bucket>`, `console-sign-in:account:<sha256 of the address>` and
// `console-sign-in:link:<sha256 of the link>`: not scoped by tenant, which is unknown until the
// account is found.
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { ConsoleAuthDeps } from './console-auth-deps.js';
import { AppError } from '../../errors.js';
import { clientBucket } from '../../http/client-bucket.js';

const WINDOW_SECONDS = 15 * 60;
// Uses of one link (it is one person's; a short password is refused before this counts). A link
// of ours takes its point before the lookup, so one is looked up at most this often.
const PER_LINK = 5;

export interface SignInLimits {
  // Takes a point from the IP and from the account; throws rate_limited when either is spent.
  attempt(email: string, ip: string): Promise<void>;
  // A correct password: the account's points come back.
  succeeded(email: string): Promise<void>;
  // A link's use that counts against the address (a token not of ours, before its lookup, or one
  // of ours found used or expired): one point from the IP.
  linkAttempt(ip: string): Promise<void>;
  // A link that exists, or a token of ours before its lookup: one point from the link.
  linkUse(tokenHash: string): Promise<void>;
}

function limiter(deps: Pick<ConsoleAuthDeps, 'redis'>, keyPrefix: string, points: number): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: deps.redis,
    keyPrefix,
    points,
    duration: WINDOW_SECONDS,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS }),
  });
}

const limited = (msBeforeNext: number) => {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError('rate_limited', `Too many sign-in attempts; try again in ${Math.ceil(retryAfter / 60)} min.`, {
    retry_after_seconds: retryAfter,
  });
};

async function take(l: RateLimiterRedis, key: string): Promise<void> {
  try {
    await l.consume(key);
  } catch (err) {
    if (err instanceof RateLimiterRes) throw limited(err.msBeforeNext);
    throw err;
  }
}

export function signInLimits(deps: Pick<ConsoleAuthDeps, 'redis' | 'config'>): SignInLimits {
  const perIp = limiter(deps, 'console-sign-in:ip', deps.config.consoleSignInPerIp);
  const perAccount = limiter(deps, 'console-sign-in:account', deps.config.consoleSignInPerAccount);
  const perLink = limiter(deps, 'console-sign-in:link', PER_LINK);
  const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 40);
  return {
    async attempt(email, ip) {
      await take(perIp, clientBucket(ip));
      await take(perAccount, digest(email.trim().toLowerCase()));
    },
    async succeeded(email) {
      await perAccount.delete(digest(email.trim().toLowerCase()));
    },
    linkAttempt: (ip) => take(perIp, clientBucket(ip)),
    linkUse: (tokenHash) => take(perLink, tokenHash.slice(0, 40)),
  };
}
