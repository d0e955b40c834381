// Starts the job queue and its workers in this process (`doorman serve`, `doorman worker`).
// A failing handler throws; pg-boss retries the job with backoff.
import type { Deps } from '../deps.js';
import { repairGraphLinks } from '../graph/graph-repair-job.js';
import type { LinkParams } from '../graph/identity-graph.js';
import { ensureQueues, QUEUES } from './job-queue.js';
import { runBacktestJobs, type BacktestJob } from '../policies/backtest-job.js';

export async function startWorkers(deps: Deps, pollingIntervalSeconds = 2): Promise<void> {
  await deps.boss.start();
  await ensureQueues(deps.boss);
  await deps.boss.work<LinkParams>(QUEUES.graphRepair, { batchSize: 1, pollingIntervalSeconds }, (jobs) => repairGraphLinks(deps, jobs));
  await deps.boss.work<BacktestJob>(QUEUES.policyBacktest, { batchSize: 1, pollingIntervalSeconds }, (jobs) => runBacktestJobs(deps, jobs));
}
