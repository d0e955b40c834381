// Use case: record an outcome about an event, an account or an email, and spread it across the
// subject's linked identity cluster (design/default-policy.md, Feedback).
import type { Scope } from '../db/queryable.js';
import type { Deps } from '../deps.js';
import { NEVER_SUPPRESSED } from '../engine/never-suppressed.js';
import { AppError } from '../http/app-error.js';
import { normalizeEmail } from '../signals/email/normalize-email.js';
import { markApplied, recordOutcome, subjectEvents, type Outcome, type SubjectKind } from './feedback-store.js';


const ANCHOR: Record<SubjectKind, string> = { event_id: 'event', external_user_id: 'account', email: 'email' };

export interface FeedbackInput {
  subject: { kind: SubjectKind; value: string };
  outcome: Outcome;
  note?: string;
}

export async function recordFeedback(deps: Pick<Deps, 'db' | 'graph' | 'cypher'>, scope: Scope, input: FeedbackInput): Promise<void> {
  const { kind, value } = input.subject;
  const events = await subjectEvents(deps.db, scope, kind, value);
  const anchorValue = kind === 'email' ? (normalizeEmail(value) ?? value.trim().toLowerCase()) : value;
  const codes = events.codes.filter((c) => !NEVER_SUPPRESSED.has(c));

  // Resolve in the graph first only when Postgres knows nothing (an email seen in another spelling).
  if (!events.found && kind !== 'email') throw new AppError('not_found', `No ${kind} ${value} in this tenant and mode.`);
  const pending = events.found ? await recordOutcome(deps.db, scope, kind, value, input.outcome, input.note) : true;
  if (!pending) return;

  const { records } = await deps.graph.executeQuery(deps.cypher.get('graph/mark-cluster'), {
    tenantId: scope.tenantId, mode: scope.mode, anchorKind: ANCHOR[kind], anchorValue, outcome: input.outcome, codes,
  });
  const found = records[0]?.get('found') === true;
  if (!events.found) {
    if (!found) throw new AppError('not_found', `No identity built from ${value} in this tenant and mode.`);
    if (!(await recordOutcome(deps.db, scope, kind, value, input.outcome, input.note))) return;
  }
  await markApplied(deps.db, scope, kind, value, input.outcome);
}
