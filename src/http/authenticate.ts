// Bearer key → hash → key row (from memory: src/tenants/key-directory.ts) → req.scope. Every
// failure is 401 `unauthorized` (contract §5):
// missing, malformed, unknown, revoked, or the wrong kind of key for the route.
// Made-up keys must not cost a database lookup each: a key found unknown or revoked is
// remembered for a minute in this process, and every failed authentication counts against the
// client's address (its /64 for IPv6) on a shared Redis limiter, AUTH_FAILURES_PER_IP per
// AUTH_FAILURE_WINDOW_SECONDS. Once a failure finds the address past that (the count is the
// fleet's), this process holds the address back for the rest of the window: a key it has not
// seen succeed lately is answered 429 without a lookup; keys in use keep working, so one client
// guessing behind a shared NAT does not lock its neighbours out. A successful request makes no
// Redis call for this.
import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { KeyDirectory } from '../tenants/key-directory.js';
import type { Scope } from '../scope.js';
import type { Metrics } from '../metrics/metrics.js';
import { bearerToken, hashKey, parseKey, type KeyKind } from '../tenants/api-key.js';
import { AppError } from '../errors.js';
import { clientBucket } from './client-bucket.js';
import './express-request.js';

const unauthorized = (message: string) => new AppError('unauthorized', message);

// What authenticate() needs; the composition root (src/deps.ts) passes its Deps. Without
// `metrics`, requests held back for failures are not counted.
export interface AuthDeps {
  keys: KeyDirectory;
  redis: Redis;
  config: Pick<Config, 'authFailuresPerIp' | 'authFailureWindowSeconds'>;
  metrics?: Metrics;
}

const UNKNOWN_TTL_MS = 60_000;
const KNOWN_TTL_MS = 10 * 60_000;

interface KeyDoor {
  // Hashes that were unknown or revoked a moment ago (no lookup for them).
  refused: LRUCache<string, 'unknown' | 'revoked'>;
  // Hashes that authenticated lately: never held back by an address's failures.
  known: LRUCache<string, true>;
  // Addresses past their failures, until their window ends (the entry's own TTL).
  blocked: LRUCache<string, number>;
  failures: RateLimiterRedis;
}

const doors = new WeakMap<object, KeyDoor>();

function doorFor(deps: AuthDeps): KeyDoor {
  let door = doors.get(deps);
  if (!door) {
    const points = deps.config.authFailuresPerIp;
    const duration = deps.config.authFailureWindowSeconds;
    const keyPrefix = 'ratelimit:auth-failures';
    door = {
      refused: new LRUCache({ max: 10_000, ttl: UNKNOWN_TTL_MS }),
      known: new LRUCache({ max: 100_000, ttl: KNOWN_TTL_MS }),
      blocked: new LRUCache({ max: 100_000, ttl: duration * 1000 }),
      failures: new RateLimiterRedis({
        storeClient: deps.redis,
        keyPrefix,
        points,
        duration,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
      }),
    };
    doors.set(deps, door);
  }
  return door;
}

export interface Authenticated {
  scope: Scope;
  // How long the key lookup took (the verdict's Server-Timing).
  authMs: number;
}

// The key on one request, from its Authorization header and the client's address: the scope it
// decides, or a thrown 401 (or 429, with retry-after set through `set`). Express's middleware
// below and the verdict's own route (src/verdicts/verdict-http.ts) share it.
export async function authenticateKey(
  deps: AuthDeps,
  expected: KeyKind,
  request: { authorization: string | undefined; clientAddress: string | undefined },
  set: (name: string, value: string) => void,
): Promise<Authenticated> {
  const started = performance.now();
  const token = bearerToken(request.authorization);
  if (!token) throw unauthorized('No API key: send it as "Authorization: Bearer <key>".');
  const parsed = parseKey(token);
  if (!parsed) throw unauthorized('The API key is malformed.');
  if (parsed.kind !== expected) {
    throw unauthorized(
      expected === 'secret'
        ? 'A publishable key cannot be used here; this endpoint takes a secret key (sk_).'
        : 'A secret key must never reach a browser; this endpoint takes a publishable key (pk_).',
    );
  }
  const door = doorFor(deps);
  const hash = hashKey(token);
  const client = clientBucket(request.clientAddress);
  const fail = async (message: string): Promise<never> => {
    const counted = await door.failures.penalty(client, 1).catch(() => undefined);
    if (counted && counted.consumedPoints >= deps.config.authFailuresPerIp) {
      door.blocked.set(client, Date.now() + counted.msBeforeNext, { ttl: Math.max(1, counted.msBeforeNext) });
    }
    throw unauthorized(message);
  };
  // The common case (no address held back, no key refused lately) costs two size checks.
  const until = door.blocked.size === 0 || door.known.has(hash) ? undefined : door.blocked.get(client);
  if (until !== undefined) {
    deps.metrics?.rateLimited('auth_failures');
    const retryAfter = Math.max(1, Math.ceil((until - Date.now()) / 1000));
    set('retry-after', String(retryAfter));
    throw new AppError('rate_limited', `Too many failed authentications from this address; retry after ${retryAfter} s.`);
  }
  const remembered = door.refused.size === 0 ? undefined : door.refused.get(hash);
  if (remembered) return fail(remembered === 'revoked' ? 'The API key has been revoked.' : 'The API key is unknown.');
  const row = await deps.keys.find(hash);
  if (!row || row.kind !== parsed.kind || row.mode !== parsed.mode) {
    door.refused.set(hash, 'unknown');
    return fail('The API key is unknown.');
  }
  if (row.revoked) {
    door.refused.set(hash, 'revoked');
    return fail('The API key has been revoked.');
  }
  // Remembered from its first success for KNOWN_TTL_MS, then again at its next success.
  if (!door.known.has(hash)) door.known.set(hash, true);
  return { scope: { tenantId: row.tenantId, mode: row.mode }, authMs: performance.now() - started };
}

export function authenticate(deps: AuthDeps, expected: KeyKind): RequestHandler {
  return async (req, res, next) => {
    const { scope, authMs } = await authenticateKey(
      deps,
      expected,
      { authorization: req.get('authorization'), clientAddress: req.ip ?? req.socket.remoteAddress },
      (name, value) => res.set(name, value),
    );
    req.scope = scope;
    req.authMs = authMs;
    next();
  };
}
