// Fixed-window rate limit shared by every instance through Redis (contract §7, §8): one budget
// of RATE_LIMIT_PER_MINUTE per API key and window, or per client IP when no plausible key is
// presented (an IPv6 client by its /64: http/client-bucket.ts). It runs before authentication
// and body parsing, so a 429 leaves no trace.
// Redis down: a per-instance in-memory limiter with the same budget takes over (logged).
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import { bearerToken, parseKey } from '../tenants/api-key.js';
import { AppError } from '../errors.js';
import { clientBucket } from './client-bucket.js';

// The Redis key never holds the API key itself, only a hash of it.
export function bucketOf(authorization: string | undefined, clientAddress: string | undefined): string {
  const token = bearerToken(authorization);
  if (token && parseKey(token)) return `key:${createHash('sha256').update(token).digest('hex').slice(0, 40)}`;
  return `ip:${clientBucket(clientAddress)}`;
}

export function bucketFor(req: Request): string {
  return bucketOf(req.get('authorization'), req.ip ?? req.socket.remoteAddress);
}

type SetHeader = (name: string, value: string) => void;

function setHeaders(set: SetHeader, limit: number, r: RateLimiterRes): void {
  set('x-ratelimit-limit', String(limit));
  set('x-ratelimit-remaining', String(Math.max(0, r.remainingPoints)));
  // Seconds until the window resets (not an epoch time), like retry-after.
  set('x-ratelimit-reset', String(Math.ceil(r.msBeforeNext / 1000)));
}

// What rateLimit() needs; the composition root (src/deps.ts) passes its Deps. Without `metrics`,
// 429s are not counted.
export interface RateLimitDeps {
  redis: Redis;
  config: Pick<Config, 'rateLimitPerMinute' | 'rateLimitWindowSeconds'>;
  logger: Logger;
  metrics?: Metrics;
}

// Counts one request against its bucket: sets the x-ratelimit-* headers, and throws
// `rate_limited` (with retry-after set) past the budget. Express's middleware below and the
// verdict's own route (src/verdicts/verdict-http.ts) share it.
export type RateLimiter = (bucket: string, set: SetHeader) => Promise<void>;

export function createRateLimiter(deps: RateLimitDeps, keyPrefix = 'ratelimit'): RateLimiter {
  const points = deps.config.rateLimitPerMinute;
  const duration = deps.config.rateLimitWindowSeconds;
  const limiter = new RateLimiterRedis({
    storeClient: deps.redis,
    keyPrefix,
    points,
    duration,
    // Go to the insurance limiter at once when the connection is not ready, instead of waiting.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
  });
  let lastWarned = 0;

  return async (bucket, set) => {
    if (deps.redis.status !== 'ready' && Date.now() - lastWarned > 10_000) {
      lastWarned = Date.now();
      deps.logger.warn('redis unavailable: rate limiting per instance in memory');
    }
    try {
      setHeaders(set, points, await limiter.consume(bucket));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      deps.metrics?.rateLimited(bucket.startsWith('key:') ? 'key' : 'ip');
      setHeaders(set, points, err);
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      set('retry-after', String(retryAfter));
      throw new AppError('rate_limited', `Rate limit of ${points} requests per ${duration} s exceeded; retry after ${retryAfter} s.`);
    }
  };
}

// Express's middleware over one limiter (the app makes one, for this and the verdict's route, so
// the in-memory budget while Redis is down is one budget too).
export function rateLimit(limit: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    await limit(bucketFor(req), (name, value) => res.set(name, value));
    next();
  };
}
