// Use case: re-evaluate one stored decision from the signals it was judged on, under its own
// policy (it must come out the same) or another version (the difference is the point), with
// the counterfactual of the replayed decision. The report is in the CLI's wire shape.
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import { counterfactual, type Counterfactual } from '../../engine/counterfactual.js';
import { ENGINE_VERSION } from '../../engine/engine-version.js';
import { evaluate } from '../../engine/evaluate.js';
import { defaultRules } from '../../engine/rule-table.js';
import type { Decision } from '../../engine/types.js';
import { AppError } from '../../errors.js';
import { compareDecisions, type DecisionView, type Difference } from './compare-decisions.js';
import { resolvePolicy } from '../documents/resolve-policy.js';
import { findStoredDecision, type StoredDecision } from './stored-decisions.js';

export interface ReplayReport {
  event_id: string;
  event_type: string;
  // The version replayed under, and the one that judged the event.
  policy_version: string;
  stored_policy_version: string;
  engine_version: { stored: string | null; current: string };
  same: boolean;
  stored: DecisionView;
  replayed: DecisionView;
  differences: Difference[];
  counterfactual: Counterfactual | null;
}

export const viewOf = (d: Pick<Decision, 'verdict' | 'reasons'> & { recommendedAction?: string }): DecisionView => ({
  verdict: d.verdict,
  reasons: d.reasons,
  ...(d.recommendedAction && { recommended_action: d.recommendedAction }),
});

export async function loadDecision(db: Queryable, scope: Scope, eventId: string): Promise<StoredDecision> {
  const stored = await findStoredDecision(db, scope, eventId);
  if (!stored) throw new AppError('not_found', `No event ${eventId} in this tenant and mode.`);
  return stored;
}

export async function replayEvent(deps: { db: Queryable }, scope: Scope, eventId: string, policyVersion?: string): Promise<ReplayReport> {
  const stored = await loadDecision(deps.db, scope, eventId);
  const version = policyVersion ?? stored.policyVersion;
  const { policy } = await resolvePolicy(deps.db, scope, version);
  const replayed = evaluate(stored.signals, defaultRules, policy);
  const storedView = viewOf(stored);
  const replayedView = viewOf(replayed);
  const differences = compareDecisions(storedView, replayedView);
  return {
    event_id: stored.id,
    event_type: stored.eventType,
    policy_version: version,
    stored_policy_version: stored.policyVersion,
    engine_version: { stored: stored.engineVersion ?? null, current: ENGINE_VERSION },
    same: differences.length === 0,
    stored: storedView,
    replayed: replayedView,
    differences,
    counterfactual: counterfactual(stored.signals, defaultRules, policy) ?? null,
  };
}
