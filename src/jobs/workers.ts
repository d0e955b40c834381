// Starts the background work of a process (`doorman serve`, `doorman worker`): the graph writer
// (the outbox to Neo4j) and the job queue with its workers. A failing job handler throws;
// pg-boss retries the job with backoff.
import type { Deps } from '../deps.js';
import { ensureQueues } from './job-queue.js';

export async function startGraphWriter(deps: Deps): Promise<void> {
  await deps.graphWriter.start();
}

export async function startWorkers(deps: Deps): Promise<void> {
  await deps.boss.start();
  await ensureQueues(deps.boss);
}
