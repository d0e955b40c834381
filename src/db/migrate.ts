// Applies the Postgres migrations (plain .sql files in migrations/, via node-pg-migrate, which
// takes an advisory lock so concurrent starts are safe) and pg-boss's schema. Both are idempotent.
// (The Neo4j schema is the graph's: src/graph/graph-schema.ts.)
import path from 'node:path';
import { runner } from 'node-pg-migrate';
import type { Logger } from 'pino';
import PgBoss from 'pg-boss';
import { ensureQueues } from '../jobs/job-queue.js';
import { repoDir, type Config } from '../config.js';

export async function migratePostgres(config: Config, logger: Logger): Promise<string[]> {
  const applied = await runner({
    databaseUrl: config.databaseDirectUrl,
    dir: path.join(repoDir, 'migrations'),
    migrationsTable: 'pgmigrations',
    direction: 'up',
    count: Infinity,
    checkOrder: true,
    log: (msg: string) => logger.debug({ msg }, 'migration'),
    logger: { debug: () => undefined, info: () => undefined, warn: (m: string) => logger.warn(m), error: (m: string) => logger.error(m) },
  });
  return applied.map((m) => m.name);
}

// pg-boss installs and migrates its own schema (pgboss) when started; queues are created once.
// A boss of its own, without the supervisor and the scheduler: started only to migrate, it must
// stop at once (a full boss stopped right after start leaves its first cron tick running).
export async function migrateJobQueue(databaseUrl: string, logger: Logger): Promise<void> {
  const boss = new PgBoss({ connectionString: databaseUrl, max: 2, schema: 'pgboss', supervise: false, schedule: false });
  boss.on('error', (err: Error) => logger.warn({ err: err.message }, 'job queue error'));
  await boss.start();
  await ensureQueues(boss);
  await boss.stop({ graceful: false, wait: true });
}
