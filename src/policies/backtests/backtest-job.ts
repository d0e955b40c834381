// Long backtests run as pg-boss jobs on a worker (`doorman worker` or `serve`), so the CLI can
// detach; the job carries only the backtest id, the run's row holds everything else.
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { QUEUES } from '../../jobs/job-queue.js';
import { runBacktest } from './run-backtest.js';

export interface BacktestJob {
  backtest_id: string;
}

export async function enqueueBacktest(deps: { db: pg.Pool; boss: PgBoss }, id: string): Promise<void> {
  await deps.boss.send(QUEUES.policyBacktest.name, { backtest_id: id } satisfies BacktestJob, {
    // Sent through our pool: a one-shot CLI never starts the queue.
    db: { executeSql: (text, values) => deps.db.query(text, values) },
    retryLimit: 1,
    expireInHours: 6,
  });
}

export async function runBacktestJobs(deps: { db: pg.Pool }, jobs: PgBoss.Job<BacktestJob>[]): Promise<void> {
  for (const job of jobs) await runBacktest(deps, job.data.backtest_id);
}
