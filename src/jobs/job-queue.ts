// pg-boss, the job queue in Postgres: queue names and options, creation, and enqueueing inside a
// caller's transaction (a review resolution and its first delivery job commit together, or
// neither does). The workers that take the jobs are started by src/start-workers.ts; graph writes
// are not jobs (src/graph/).
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Logger } from 'pino';

// Queue name → options. (Graph links are not jobs: they go through the graph outbox, applied in
// order by the graph writer, src/graph/graph-writer.ts.)
export const QUEUES = {
  // One job per delivery attempt. A job whose worker died is expired by the supervisor and
  // retried (the same attempt); a failed attempt schedules the next one itself (retry-schedule.ts).
  webhookDelivery: { name: 'webhook-delivery', retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 },
  // Long policy backtests (src/policies/backtests/backtest-job.ts); each send sets its own retry and expiry.
  policyBacktest: { name: 'policy-backtest' },
  // Hourly (src/start-workers.ts), one run at a time across the fleet; a run is bounded to 5 minutes.
  retention: { name: 'event-retention', policy: 'singleton', retryLimit: 1, expireInSeconds: 900 },
  // The public feeds (src/intel/): on INTEL_UPDATE_CRON and once at each worker's start, one run
  // at a time across the fleet; a run is bounded by its fetches' timeouts. Not retried: the next
  // run asks again whatever is due.
  intelUpdate: { name: 'intel-update', policy: 'singleton', retryLimit: 0, expireInSeconds: 900 },
} satisfies Record<string, PgBoss.Queue>;

export function createBoss(databaseUrl: string, logger: Logger, maintenanceIntervalSeconds = 120): PgBoss {
  const boss = new PgBoss({ connectionString: databaseUrl, max: 4, schema: 'pgboss', maintenanceIntervalSeconds });
  boss.on('error', (err: Error) => logger.warn({ err: err.message }, 'job queue error'));
  return boss;
}

export async function ensureQueues(boss: PgBoss): Promise<void> {
  for (const queue of Object.values(QUEUES)) {
    if (!(await boss.getQueue(queue.name))) await boss.createQueue(queue.name, queue);
  }
}

// A delivery job expires (its worker presumed dead, the job retried) a little after the longest
// attempt can last; a worker that died is replaced within the supervisor's interval after that.
export function deliveryJobOptions(config: { webhookTimeoutMs: number }): PgBoss.SendOptions {
  return { expireInSeconds: Math.ceil(config.webhookTimeoutMs / 1000) + 5, retryDelay: 2, retryLimit: 5 };
}

// A delivery waiting for its endpoint is looked at again every minute; that look yields to every
// delivery that can be sent (pg-boss takes higher priorities first, then the oldest).
export const WAITING_DELIVERY_PRIORITY = -1;

export function inTransactionDb(tx: pg.PoolClient): PgBoss.Db {
  return { executeSql: (text, values) => tx.query(text, values) };
}
