// Use case: explain one stored decision: the reasons with their thresholds, and for a review or
// a block the single change of input that would have given the next milder verdict, computed by
// the engine from the policy's thresholds. The decision explained is the replay under the
// event's own policy (or the one named), so it says whether that still matches what was stored.
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import type { Counterfactual } from '../../engine/counterfactual.js';
import type { Reason } from '../../engine/types.js';
import { replayEvent } from './replay-event.js';

export interface Explanation {
  event_id: string;
  event_type: string;
  policy_version: string;
  verdict: string;
  reasons: Reason[];
  recommended_action?: string;
  same_as_stored: boolean;
  counterfactual: Counterfactual | null;
}

export async function explainEvent(deps: { db: Queryable }, scope: Scope, eventId: string, policyVersion?: string): Promise<Explanation> {
  const r = await replayEvent(deps, scope, eventId, policyVersion);
  return {
    event_id: r.event_id,
    event_type: r.event_type,
    policy_version: r.policy_version,
    verdict: r.replayed.verdict,
    reasons: r.replayed.reasons,
    ...(r.replayed.recommended_action && { recommended_action: r.replayed.recommended_action }),
    same_as_stored: r.same,
    counterfactual: r.counterfactual,
  };
}

// One line per reason and one for the counterfactual, for a person.
export function explanationText(e: Explanation): string {
  const lines = [
    `${e.event_id} (${e.event_type}): ${e.verdict} under policy ${e.policy_version}${e.same_as_stored ? '' : ' (differs from the stored decision: see `doorman policy replay`)'}`,
  ];
  for (const r of e.reasons) {
    const d = r.detail ?? {};
    const measured = d.count !== undefined && d.threshold !== undefined ? `: ${d.count} against ${d.threshold}` : '';
    const window = d.window_seconds ? ` in ${d.window_seconds} s` : '';
    lines.push(`  ${r.code}${measured}${window}${d.rule ? ` (${d.rule})` : ''}`);
  }
  const cf = e.counterfactual;
  if (cf && cf.changes.length > 0) {
    const c = cf.changes[0]!;
    lines.push(`Would have been ${c.verdict} had ${c.input} been ${String(c.to)} instead of ${String(c.from)} (${c.rule}).`);
    for (const other of cf.changes.slice(1)) lines.push(`  or had ${other.input} been ${String(other.to)} (${other.verdict}).`);
  } else if (cf) {
    lines.push(`No single change of input gives ${cf.to}: several rules would each have to stop firing.`);
  }
  return lines.join('\n');
}
