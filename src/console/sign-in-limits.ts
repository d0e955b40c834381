// Sign-in attempts, limited per account and per client IP on the shared Redis limiter
// (rate-limiter-flexible, like the API's): every attempt counts against the IP, every failure
// against the account, in fixed 15-minute windows. A success clears the account's count.
// Redis down: an in-memory limiter per instance takes over, as for the API.
// Keys are `console-sign-in:ip:<addr>` and `console-sign-in:account:<sha256 of the address>`:
// not scoped by tenant, because the tenant is unknown until the account is found.
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Deps } from '../deps.js';
import { AppError } from '../http/app-error.js';

const WINDOW_SECONDS = 15 * 60;

export interface SignInLimits {
  // Counts the attempt against the IP; throws rate_limited when the IP or the account is spent.
  attempt(email: string, ip: string): Promise<void>;
  failed(email: string): Promise<void>;
  succeeded(email: string): Promise<void>;
}

function limiter(deps: Pick<Deps, 'redis'>, keyPrefix: string, points: number): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: deps.redis, keyPrefix, points, duration: WINDOW_SECONDS, rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS }),
  });
}

const limited = (msBeforeNext: number) => {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError('rate_limited', `Too many sign-in attempts; try again in ${Math.ceil(retryAfter / 60)} min.`, { retry_after_seconds: retryAfter });
};

export function signInLimits(deps: Pick<Deps, 'redis' | 'config'>): SignInLimits {
  const perIp = limiter(deps, 'console-sign-in:ip', deps.config.consoleSignInPerIp);
  const perAccount = limiter(deps, 'console-sign-in:account', deps.config.consoleSignInPerAccount);
  const accountKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 40);
  return {
    async attempt(email, ip) {
      try {
        await perIp.consume(ip);
      } catch (err) {
        if (err instanceof RateLimiterRes) throw limited(err.msBeforeNext);
        throw err;
      }
      const spent = await perAccount.get(accountKey(email));
      if (spent && spent.consumedPoints >= deps.config.consoleSignInPerAccount) throw limited(spent.msBeforeNext);
    },
    async failed(email) {
      await perAccount.penalty(accountKey(email), 1);
    },
    async succeeded(email) {
      await perAccount.delete(accountKey(email));
    },
  };
}
