// Use case: remove events older than EVENT_RETENTION_DAYS from Postgres and the graph, and
// feedback reported before then. Scope by scope, in batches of RETENTION_BATCH_SIZE, each batch
// one short transaction (its graph removal queued in the outbox, applied in lane order by the
// graph writer), bounded in time per run: the scheduled job (src/start-workers.ts) runs it hourly and
// `doorman retention run` on demand; a run that stops early leaves the rest to the next.
// A scope whose batch fails is skipped for this run (logged at error, counted in
// doorman_retention_scope_failures_total); the scopes after it are still cleaned.
import type pg from 'pg';
import type { Logger } from 'pino';
import { inTransaction } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import type { Metrics } from '../metrics/metrics.js';
import {
  deleteEventsAndDependents,
  scopesWithDataBefore,
  deleteOldFeedback,
  eventFeedbackKeys,
  oldestEventsBefore,
} from './retention-store.js';

const DAY_MS = 86_400_000;

// What retention needs; the composition root (src/deps.ts) passes its Deps.
export interface RetentionDeps {
  db: pg.Pool;
  config: Pick<Config, 'eventRetentionDays' | 'retentionBatchSize'>;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  graphOutbox: GraphOutbox;
}

export interface RetentionResult {
  cutoff: Date;
  events: number;
  feedback: number;
  batches: number;
  // False when the run stopped at its time budget with old events left, or a scope failed.
  complete: boolean;
  // Scopes skipped this run because a batch failed.
  failedScopes: number;
}

export async function applyRetention(deps: RetentionDeps, options: { budgetMs?: number } = {}): Promise<RetentionResult> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - deps.config.eventRetentionDays * DAY_MS);
  const limit = deps.config.retentionBatchSize;
  const stopAt = Date.now() + (options.budgetMs ?? 5 * 60_000);
  const result: RetentionResult = { cutoff, events: 0, feedback: 0, batches: 0, complete: true, failedScopes: 0 };
  for (const scope of await scopesWithDataBefore(deps.db, cutoff)) {
    try {
      if (!(await retainScope(deps, scope, { cutoff, now, limit, stopAt }, result))) return result;
    } catch (err) {
      result.failedScopes += 1;
      result.complete = false;
      deps.metrics.retentionScopeFailed();
      deps.logger.error(
        { err, tenant_id: scope.tenantId, mode: scope.mode, cutoff: cutoff.toISOString() },
        'retention failed for a scope; skipped until the next run',
      );
    }
  }
  if (result.events > 0 || result.feedback > 0) {
    deps.logger.info(
      { cutoff: cutoff.toISOString(), events: result.events, feedback: result.feedback, batches: result.batches },
      'retention applied',
    );
  }
  return result;
}

// One scope, batch after batch, until it has nothing left past the cutoff (true) or the run's
// time budget is spent (false).
async function retainScope(
  deps: Pick<RetentionDeps, 'db' | 'metrics' | 'graphOutbox'>,
  scope: Scope,
  run: { cutoff: Date; now: Date; limit: number; stopAt: number },
  result: RetentionResult,
): Promise<boolean> {
  const { cutoff, now, limit } = run;
  for (;;) {
    if (Date.now() > run.stopAt) {
      result.complete = false;
      return false;
    }
    const batch = await inTransaction(deps.db, async (tx) => {
      const ids = await oldestEventsBefore(tx, scope, cutoff, limit);
      const feedbackKeys = ids.length < limit ? await deleteOldFeedback(tx, scope, cutoff, limit - ids.length) : [];
      if (ids.length === 0 && feedbackKeys.length === 0) return undefined;
      await deps.graphOutbox.dropPending(tx, scope, { eventIds: ids });
      await deleteEventsAndDependents(tx, scope, ids);
      await deps.graphOutbox.forget(tx, scope, {
        at: now.getTime(),
        eventIds: ids,
        accounts: [],
        ids: [],
        feedbackKeys: [...eventFeedbackKeys(ids), ...feedbackKeys],
        erasureId: null,
      });
      return { events: ids.length, feedback: feedbackKeys.length };
    });
    if (!batch) return true;
    result.events += batch.events;
    result.feedback += batch.feedback;
    result.batches += 1;
    deps.metrics.retentionDeleted(batch.events);
  }
}
