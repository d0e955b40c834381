// Use case: a human resolves a queued review, exactly once (contract §3, §6). In one transaction:
// the resolution (who, when, why), the review.resolved delivery with its payload frozen, the
// delivery's first job, and the graph mark (a denial marks the event's cluster like
// confirmed_abuse; an approval suppresses the codes that fired, like a false positive). No
// resolution without its delivery, no delivery without its resolution. The CLI and the analyst
// console both call this; the console's audit entry is written in the same transaction, so no
// resolution goes unaudited and no failed audit leaves a resolution behind.
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { inTransaction } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { newId } from '../db/new-id.js';
import { markOf, type GraphOutbox } from '../graph/graph-outbox.js';
import { AppError } from '../errors.js';
import { audit, type Actor } from '../audit/audit-store.js';
import { deliveryJobOptions, inTransactionDb, QUEUES } from '../jobs/job-queue.js';
import { wakeWebhookWorkers } from '../webhooks/webhook-wake.js';
import { insertDelivery } from '../webhooks/webhook-store.js';
import { lockReviewForResolution, markResolved, type Resolution } from './review-store.js';

// What the review use cases need; the composition root (src/deps.ts) passes its Deps.
export interface ReviewDeps {
  db: pg.Pool;
  boss: PgBoss;
  clock: Clock;
  config: Pick<Config, 'webhookTimeoutMs'>;
  graphOutbox: GraphOutbox;
}

export interface ResolveInput {
  eventId: string;
  resolution: Resolution;
  note?: string;
  // Free text: who resolved it (the CLI's default is the OS user; the console's, the analyst).
  resolvedBy: string;
  // The console's audit entry (`review.resolve`), written with the resolution; `bulk` for one of
  // the queue's resolutions of several reviews.
  audited?: { actor: Actor; bulk?: boolean };
}

export interface Resolved {
  finalVerdict: 'allow' | 'block';
  resolvedAt: Date;
  deliveryId: string;
}

// Our choice for the contract's "not shown": an approval's final verdict is `allow`.
const FINAL: Record<Resolution, Resolved['finalVerdict']> = { denied: 'block', approved: 'allow' };

export async function resolveReview(deps: ReviewDeps, scope: Scope, input: ResolveInput): Promise<Resolved> {
  const resolvedAt = deps.clock.now();
  const deliveryId = newId('dlv');
  const finalVerdict = FINAL[input.resolution];
  await inTransaction(deps.db, async (tx) => {
    const found = await lockReviewForResolution(tx, scope, input.eventId);
    if (!found.event) throw new AppError('not_found', `No event ${input.eventId} in this tenant and mode.`);
    const review = found.review;
    if (!review) throw new AppError('conflict', `Event ${input.eventId} was not a review: there is nothing to resolve.`);
    if (review.status !== 'pending')
      throw new AppError('conflict', `The review of ${input.eventId} was already resolved (${review.status}).`);
    await markResolved(tx, scope, input.eventId, {
      resolution: input.resolution,
      resolvedAt,
      resolvedBy: input.resolvedBy,
      note: input.note,
    });
    // Contract §6.2, plus delivery_id and policy_version (additive). Key order is fixed: these
    // bytes are what every attempt sends and what the signature covers.
    const payload = JSON.stringify({
      type: 'review.resolved',
      event_id: input.eventId,
      resolution: input.resolution,
      final_verdict: finalVerdict,
      resolved_at: resolvedAt.toISOString(),
      ...(review.externalUserId !== undefined && { external_user_id: review.externalUserId }),
      ...(review.email !== undefined && { email: review.email }),
      delivery_id: deliveryId,
      policy_version: review.policyVersion,
    });
    await insertDelivery(tx, scope, { id: deliveryId, eventId: input.eventId, payload });
    // An erased person's event makes no mark (the graph has forgotten them, and a rebuild from
    // Postgres would not bring the mark back).
    if (!review.erased) {
      await deps.graphOutbox.mark(
        tx,
        scope,
        markOf(scope, {
          source: 'review',
          subject: { kind: 'event_id', value: input.eventId },
          at: resolvedAt,
          outcome: input.resolution === 'denied' ? 'confirmed_abuse' : 'false_positive',
          codes: review.reasons.map((r) => r.code),
        }),
      );
    }
    await deps.boss.send(
      QUEUES.webhookDelivery.name,
      { deliveryId, attempt: 1 },
      { db: inTransactionDb(tx), ...deliveryJobOptions(deps.config) },
    );
    if (input.audited) {
      await audit(tx, input.audited.actor, 'review.resolve', input.eventId, {
        resolution: input.resolution,
        note: input.note ?? null,
        delivery_id: deliveryId,
        ...(input.audited.bulk && { bulk: true }),
      });
    }
  });
  wakeWebhookWorkers(deps.db);
  return { finalVerdict, resolvedAt, deliveryId };
}
