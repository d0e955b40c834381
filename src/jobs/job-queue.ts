// pg-boss, the job queue in Postgres: queue names, creation, and enqueueing inside a caller's
// transaction (so no event exists without its job, nor a job without its event).
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Logger } from 'pino';

// Queue name → options. (Graph links are not jobs: they go through the graph outbox, applied in
// order by the graph writer, src/graph/graph-writer.ts.)
export const QUEUES: Record<string, PgBoss.Queue> = {};

export function createBoss(databaseUrl: string, logger: Logger): PgBoss {
  const boss = new PgBoss({ connectionString: databaseUrl, max: 4, schema: 'pgboss' });
  boss.on('error', (err: Error) => logger.warn({ err: err.message }, 'job queue error'));
  return boss;
}

export async function ensureQueues(boss: PgBoss): Promise<void> {
  for (const [name, options] of Object.entries(QUEUES)) {
    if (!(await boss.getQueue(name))) await boss.createQueue(name, { ...options, name });
  }
}

export function inTransactionDb(tx: pg.PoolClient): PgBoss.Db {
  return { executeSql: (text, values) => tx.query(text, values) };
}
