// The graph-repair job: replays link-event for a verdict whose graph write timed out or failed.
// link-event is idempotent per event id, so a write that did land late is not counted twice.
import type PgBoss from 'pg-boss';
import type { Deps } from '../deps.js';
import { linkEvent, type LinkParams } from './identity-graph.js';

export async function repairGraphLinks(deps: Pick<Deps, 'graph' | 'cypher' | 'logger'>, jobs: PgBoss.Job<LinkParams>[]): Promise<void> {
  for (const job of jobs) {
    await linkEvent(deps.graph, deps.cypher, job.data);
    deps.logger.info({ event_id: job.data.eventId, job_id: job.id }, 'graph links repaired');
  }
}
