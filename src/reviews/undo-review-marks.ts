// Use case: undo a resolution's marks (the console's "Undo marks"). The review stays resolved: its
// webhook was sent and the caller may have acted. What is taken back is the graph mark the
// resolution made (a denial's confirmed_abuse on the event's cluster, an approval's false
// positive), through the same retraction as feedback (docs/graph.md, "Undo"): the review row
// records who, when and why, the retraction goes to the outbox and the audit entry is written, in
// one short transaction; the graph writer applies it in order and recomputes the clusters.
import type { Scope } from '../scope.js';
import { inTransaction } from '../db/queryable.js';
import { AppError } from '../errors.js';
import { audit, type Actor } from '../audit/audit-store.js';
import { reviewMarkKey } from '../graph/graph-outbox.js';
import { findReview, markReviewMarksRetracted } from './review-store.js';
import type { ReviewDeps } from './resolve-review.js';

export async function undoReviewMarks(
  deps: Pick<ReviewDeps, 'db' | 'clock' | 'graphOutbox'>,
  scope: Scope,
  input: { eventId: string; note: string; actor: Actor; role: 'admin' | 'analyst' },
): Promise<{ retractedAt: Date }> {
  const at = deps.clock.now();
  return inTransaction(deps.db, async (tx) => {
    const review = await findReview(tx, scope, input.eventId);
    if (!review) throw new AppError('not_found', `No review of ${input.eventId} in this tenant and mode.`);
    if (review.status === 'pending') throw new AppError('conflict', `The review of ${input.eventId} is not resolved: it made no marks.`);
    // An analyst undoes their own resolutions; an admin, anyone's.
    if (input.role !== 'admin' && review.resolvedBy !== input.actor.analystEmail) {
      throw new AppError(
        'forbidden',
        `The review of ${input.eventId} was resolved by ${review.resolvedBy ?? 'someone else'}; only they or an admin can undo marks.`,
      );
    }
    if (!(await markReviewMarksRetracted(tx, scope, input.eventId, at, input.actor.analystEmail, input.note))) {
      throw new AppError('conflict', `The marks of the review of ${input.eventId} were already undone.`);
    }
    await deps.graphOutbox.retract(tx, scope, reviewMarkKey(input.eventId), at);
    await audit(tx, input.actor, 'review.undo_marks', input.eventId, { resolution: review.status, note: input.note });
    return { retractedAt: at };
  });
}
