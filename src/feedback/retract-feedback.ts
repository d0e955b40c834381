// Use case: take a feedback outcome back (`doorman feedback retract`, the console for admins). The
// retraction, its graph retraction (applied by the lane's writer in order, like any mark) and its
// audit entry are written in one short transaction; later verdicts no longer carry the mark's
// reasons once the writer has recomputed the clusters it was in (docs/graph.md, "Undo").
import type { Scope } from '../scope.js';
import { inTransaction } from '../db/queryable.js';
import { AppError } from '../errors.js';
import { feedbackMarkKey } from '../graph/graph-outbox.js';
import { audit, type Actor } from '../audit/audit-store.js';
import { retractOutcome, type FeedbackRow } from './feedback-store.js';
import type { FeedbackDeps } from './record-feedback.js';

export async function retractFeedback(
  deps: Pick<FeedbackDeps, 'db' | 'clock' | 'graphOutbox'>,
  scope: Scope,
  input: { feedbackId: string; note: string; actor: Actor },
): Promise<FeedbackRow> {
  return inTransaction(deps.db, async (tx) => {
    const done = await retractOutcome(tx, scope, input.feedbackId, input.actor.analystEmail, input.note);
    if (!done) throw new AppError('not_found', `No feedback ${input.feedbackId} in this tenant and mode.`);
    if (!done.already) {
      const { subject, outcome } = done.row;
      await deps.graphOutbox.retract(tx, scope, feedbackMarkKey(subject.kind, subject.value, outcome), deps.clock.now());
      await audit(tx, input.actor, 'feedback.retract', input.feedbackId, {
        outcome,
        subject: `${subject.kind}:${subject.value}`,
        note: input.note,
      });
    }
    return done.row;
  });
}
