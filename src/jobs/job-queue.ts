// pg-boss, the job queue in Postgres: queue names, creation, and enqueueing inside a caller's
// transaction (so no event exists without its job, nor a job without its event).
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Logger } from 'pino';

export const QUEUES = {
  graphRepair: 'graph-repair',
  // Long policy backtests (src/policies/backtest-job.ts); each send sets its own retry and expiry.
  policyBacktest: 'policy-backtest',
} as const;

export function createBoss(databaseUrl: string, logger: Logger): PgBoss {
  const boss = new PgBoss({ connectionString: databaseUrl, max: 4, schema: 'pgboss' });
  boss.on('error', (err: Error) => logger.warn({ err: err.message }, 'job queue error'));
  return boss;
}

export async function ensureQueues(boss: PgBoss): Promise<void> {
  for (const name of Object.values(QUEUES)) {
    if (!(await boss.getQueue(name))) {
      // Neo4j may stay down a while: retry with backoff for about a day.
      await boss.createQueue(name, { name, retryLimit: 30, retryDelay: 5, retryBackoff: true, expireInMinutes: 5 });
    }
  }
}

export function inTransactionDb(tx: pg.PoolClient): PgBoss.Db {
  return { executeSql: (text, values) => tx.query(text, values) };
}
