// Starts a process's job workers (`doorman serve`, `doorman worker`): webhook deliveries, policy
// backtests and hourly retention, on the queue of src/jobs/. A job handler that throws is retried
// by pg-boss with backoff; a job whose worker died is expired by the supervisor and retried. (The
// graph writer is not a job: it is src/graph/'s, started with deps.graphWriter.start().)
// Webhook deliveries are drained, not only polled: a pg-boss poller takes one job per interval,
// 8 a second for the four of them, so a backlog (deliveries waiting for an endpoint, retries due
// while no worker ran) would hold a new delivery up for as long as it takes to poll through it.
// A NOTIFY, a worker's start and every job a poller handles start the drain, which fetches until
// the queue has nothing due.
import type PgBoss from 'pg-boss';
import type { Deps } from './deps.js';
import { listen } from './db/listen.js';
import { deliverWebhook, type DeliveryJob } from './webhooks/deliver-webhook.js';
import { WEBHOOK_CHANNEL } from './webhooks/webhook-wake.js';
import { ensureQueues, QUEUES } from './jobs/job-queue.js';
import { runBacktestJobs, type BacktestJob } from './policies/backtests/backtest-job.js';
import { applyRetention } from './lifecycle/apply-retention.js';
import { updateIntel } from './intel/update-intel.js';

const WEBHOOK_WORKERS = 4;
const RETENTION_CRON = '17 * * * *';

export async function startWorkers(deps: Deps): Promise<{ close(): Promise<void> }> {
  await deps.boss.start();
  await ensureQueues(deps.boss);
  await deps.boss.work<BacktestJob>(QUEUES.policyBacktest.name, { batchSize: 1, pollingIntervalSeconds: 2 }, (jobs) =>
    runBacktestJobs(deps, jobs),
  );
  const queue = QUEUES.webhookDelivery.name;
  // fetch takes jobs with SKIP LOCKED, like the pollers: a job is never handed to two workers.
  let draining = false;
  let closed = false;
  const drainNow = async () => {
    if (draining || closed) return;
    draining = true;
    try {
      while (!closed) {
        const jobs = await deps.boss.fetch<DeliveryJob>(queue, { batchSize: 4 });
        if (!jobs || jobs.length === 0) return;
        await Promise.all(
          jobs.map(async (job) => {
            try {
              await deliverWebhook(deps, job.data);
              await deps.boss.complete(queue, job.id);
            } catch (err) {
              await deps.boss.fail(queue, job.id, { message: String(err) });
            }
          }),
        );
      }
    } catch (err) {
      deps.logger.warn({ err: String(err) }, 'webhook fetch failed; the pollers go on');
    } finally {
      draining = false;
    }
  };
  const handle = async (jobs: PgBoss.Job<DeliveryJob>[]) => {
    for (const job of jobs) await deliverWebhook(deps, job.data);
    void drainNow();
  };
  for (let i = 0; i < WEBHOOK_WORKERS; i++) await deps.boss.work<DeliveryJob>(queue, { batchSize: 1, pollingIntervalSeconds: 0.5 }, handle);
  // Retention: pg-boss's scheduler queues one job an hour across the fleet; any worker runs it.
  await deps.boss.schedule(QUEUES.retention.name, RETENTION_CRON);
  await deps.boss.work(QUEUES.retention.name, { pollingIntervalSeconds: 30 }, async () => {
    await applyRetention(deps);
  });
  await startIntelUpdates(deps);
  // Each (re)established LISTEN drains too: what was queued before it, or while it was down.
  const listening = listen(deps, WEBHOOK_CHANNEL, () => void drainNow(), { onListening: () => void drainNow() });
  return {
    async close() {
      closed = true;
      await listening.close();
    },
  };
}

// The public feeds on a schedule (INTEL_UPDATE_CRON), each source when its interval has passed,
// and once in the background as the worker starts: a fresh install fetches at once, and a
// machine without the internet logs one warning per source and serves the shipped data.
// INTEL_UPDATE_CRON=off leaves updates to `doorman intel update`.
async function startIntelUpdates(deps: Deps): Promise<void> {
  const queue = QUEUES.intelUpdate.name;
  if (!deps.config.intelUpdateCron) {
    await deps.boss.unschedule(queue).catch(() => undefined);
    return;
  }
  await deps.boss.schedule(queue, deps.config.intelUpdateCron);
  await deps.boss.work(queue, { pollingIntervalSeconds: 10 }, async () => {
    const { sources } = await updateIntel(deps, { dueOnly: true });
    const failed = sources.filter((s) => s.status === 'failed').length;
    deps.logger.info({ updated: sources.filter((s) => s.status === 'updated').length, failed, asked: sources.length }, 'intel update ran');
  });
  await deps.boss.send(queue, {});
}
