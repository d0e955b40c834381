// Waits (bounded) for the Redis client to be connected. Commands fail fast while it is not
// (no offline queue), so probes and startup wait for the connection first.
import type { Redis } from 'ioredis';

export function redisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  if (redis.status === 'end' || redis.status === 'close') return Promise.reject(new Error(`redis connection is ${redis.status}`));
  return new Promise((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`redis not connected within ${timeoutMs} ms`));
    }, timeoutMs);
    redis.once('ready', onReady);
  });
}
