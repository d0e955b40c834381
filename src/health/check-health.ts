// Dependency health: Postgres, Neo4j and Redis probed in parallel, each under a short timeout.
import type pg from 'pg';
import type { Driver } from 'neo4j-driver';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { beforeDeadline, isDeadline } from '../deadline.js';
import { redisReady } from '../redis/redis-ready.js';

// What the health check and GET /health need; the composition root (src/deps.ts) passes its Deps.
export interface HealthDeps {
  db: pg.Pool;
  graph: Driver;
  redis: Redis;
  config: Pick<Config, 'healthTimeoutMs'>;
  // 'cold' until the process's warm-up is started, 'warming', then 'warm' (src/warm-up.ts).
  warmState(): 'cold' | 'warming' | 'warm';
}

export interface Check {
  status: 'up' | 'down';
  latency_ms: number;
  error?: string;
}

export interface Health {
  status: 'ok' | 'unavailable';
  checks: { postgres: Check; neo4j: Check; redis: Check };
}

async function probe(timeoutMs: number, fn: () => Promise<unknown>): Promise<Check> {
  const started = performance.now();
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    await beforeDeadline(fn(), deadline);
    return { status: 'up', latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch (err) {
    const message = isDeadline(err, deadline) ? `no answer within ${timeoutMs} ms` : err instanceof Error ? err.message : String(err);
    return { status: 'down', latency_ms: Math.round(performance.now() - started), error: message.split('\n')[0] };
  }
}

export async function checkHealth(deps: Pick<HealthDeps, 'db' | 'graph' | 'redis' | 'config'>): Promise<Health> {
  const t = deps.config.healthTimeoutMs;
  const [postgres, neo4j, redis] = await Promise.all([
    probe(t, () => deps.db.query('SELECT 1')),
    probe(t, () => deps.graph.executeQuery('RETURN 1')),
    probe(t, async () => {
      await redisReady(deps.redis, t);
      return deps.redis.ping();
    }),
  ]);
  const allUp = [postgres, neo4j, redis].every((c) => c.status === 'up');
  return { status: allUp ? 'ok' : 'unavailable', checks: { postgres, neo4j, redis } };
}
