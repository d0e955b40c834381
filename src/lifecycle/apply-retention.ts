// Use case: remove events older than EVENT_RETENTION_DAYS from Postgres and the graph, and
// feedback reported before then. Scope by scope, in batches of RETENTION_BATCH_SIZE, each batch
// one short transaction (its graph removal queued in the outbox, applied in lane order by the
// graph writer), bounded in time per run: the scheduled job (jobs/workers.ts) runs it hourly and
// `doorman retention run` on demand; a run that stops early leaves the rest to the next.
import { inTransaction } from '../db/queryable.js';
import type { Deps } from '../deps.js';
import { wakeGraphWriters } from '../graph/graph-writer.js';
import { deleteEventsAndDependents, scopesWithDataBefore, deleteOldFeedback, enqueueForget, eventFeedbackKeys, oldestEventsBefore } from './retention-store.js';

const DAY_MS = 86_400_000;

export interface RetentionResult {
  cutoff: Date;
  events: number;
  feedback: number;
  batches: number;
  // False when the run stopped at its time budget with old events left.
  complete: boolean;
}

export async function applyRetention(
  deps: Pick<Deps, 'db' | 'config' | 'clock' | 'logger' | 'telemetry'>,
  options: { budgetMs?: number } = {},
): Promise<RetentionResult> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - deps.config.eventRetentionDays * DAY_MS);
  const limit = deps.config.retentionBatchSize;
  const stopAt = Date.now() + (options.budgetMs ?? 5 * 60_000);
  const result: RetentionResult = { cutoff, events: 0, feedback: 0, batches: 0, complete: true };
  for (const scope of await scopesWithDataBefore(deps.db, cutoff)) {
    for (;;) {
      if (Date.now() > stopAt) {
        result.complete = false;
        return result;
      }
      const batch = await inTransaction(deps.db, async (tx) => {
        const ids = await oldestEventsBefore(tx, scope, cutoff, limit);
        const feedbackKeys = ids.length < limit ? await deleteOldFeedback(tx, scope, cutoff, limit - ids.length) : [];
        if (ids.length === 0 && feedbackKeys.length === 0) return undefined;
        await deleteEventsAndDependents(tx, scope, ids);
        await enqueueForget(tx, scope, now, { eventIds: ids, feedbackKeys: [...eventFeedbackKeys(ids), ...feedbackKeys] });
        return { events: ids.length, feedback: feedbackKeys.length };
      });
      if (!batch) break;
      result.events += batch.events;
      result.feedback += batch.feedback;
      result.batches += 1;
      deps.telemetry.retentionDeleted(batch.events);
      wakeGraphWriters(deps.db);
    }
  }
  if (result.events > 0 || result.feedback > 0) {
    deps.logger.info({ cutoff: cutoff.toISOString(), events: result.events, feedback: result.feedback, batches: result.batches }, 'retention applied');
  }
  return result;
}
