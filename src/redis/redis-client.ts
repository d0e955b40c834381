// The Redis client for every REDIS_URL form: one server, Sentinel or Cluster, through ioredis.
// Commands fail at once while Redis is down (no offline queue), so the verdict path can treat
// velocity as a missing signal instead of waiting; the client keeps reconnecting behind it.
// Every multi-key command Doorman sends stays in one hash slot (velocity keys share the scope's
// {tenant:mode} tag; a rate-limit bucket is one key), so all of it runs on a Cluster unchanged.
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { parseRedisUrl } from './redis-url.js';

// What the code uses of either client (commands, pipelines, scripts, status, events).
export type RedisClient = Redis;

const COMMON: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  retryStrategy: (times) => Math.min(100 * times, 2000),
};

// commandTimeoutMs: a command without an answer this long fails (a stalled Redis costs a missing
// velocity signal and the in-memory rate limiter, never a request that hangs).
function connect(url: string, commandTimeoutMs: number): Redis | Cluster {
  const target = parseRedisUrl(url);
  const common = { ...COMMON, commandTimeout: commandTimeoutMs };
  if (target.kind === 'single') return new Redis(url, common);
  const tls = target.tls ? { tls: {} } : {};
  const auth = { ...(target.username && { username: target.username }), ...(target.password && { password: target.password }) };
  if (target.kind === 'sentinel') {
    return new Redis({
      ...common,
      ...auth,
      ...tls,
      sentinels: target.sentinels,
      name: target.name,
      db: target.db,
      ...(target.sentinelPassword && { sentinelPassword: target.sentinelPassword }),
      sentinelRetryStrategy: (times) => Math.min(100 * times, 2000),
    });
  }
  return new Cluster(target.nodes, {
    enableOfflineQueue: false,
    clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
    redisOptions: { ...common, ...auth, ...tls },
    // Slots move during a resharding: follow MOVED/ASK a few times before giving up.
    maxRedirections: 6,
  });
}

export function createRedis(url: string, logger: Logger, commandTimeoutMs = 1000): RedisClient {
  // A Cluster client speaks the same commands; ioredis routes each by its key's slot. The type
  // says Redis because the two share every method Doorman calls (see the header).
  const redis = connect(url, commandTimeoutMs) as RedisClient;
  let lastLogged = 0;
  redis.on('error', (err: Error) => {
    // A down Redis emits an error per reconnect attempt; one line every 10 s is enough.
    if (Date.now() - lastLogged > 10_000) {
      lastLogged = Date.now();
      logger.warn({ err: err.message }, 'redis unavailable');
    }
  });
  return redis;
}

export function isCluster(redis: RedisClient): boolean {
  return (redis as unknown) instanceof Cluster;
}
