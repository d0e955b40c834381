// What differs between a stored decision and a re-evaluated one: the verdict, each reason
// (added, removed, or with another detail) and the advice. Reason order is not significant
// (contract §2.3); details compare as canonical JSON.
import canonicalize from 'canonicalize';
import type { Reason } from '../../engine/types.js';

export interface DecisionView {
  verdict: string;
  reasons: Reason[];
  recommended_action?: string;
}

export type Difference =
  | { field: 'verdict'; stored: string; replayed: string }
  | { field: 'recommended_action'; stored: string | null; replayed: string | null }
  | { field: 'reason'; code: string; change: 'added' | 'removed' | 'detail'; stored?: Reason['detail']; replayed?: Reason['detail'] };

const canonical = (detail: Reason['detail']) => canonicalize(detail ?? {}) ?? '';

export function compareDecisions(stored: DecisionView, replayed: DecisionView): Difference[] {
  const differences: Difference[] = [];
  if (stored.verdict !== replayed.verdict) differences.push({ field: 'verdict', stored: stored.verdict, replayed: replayed.verdict });
  const before = new Map(stored.reasons.map((r) => [r.code, r]));
  const after = new Map(replayed.reasons.map((r) => [r.code, r]));
  for (const [code, r] of before) {
    const now = after.get(code);
    if (!now) differences.push({ field: 'reason', code, change: 'removed', stored: r.detail });
    else if (canonical(r.detail) !== canonical(now.detail))
      differences.push({ field: 'reason', code, change: 'detail', stored: r.detail, replayed: now.detail });
  }
  for (const [code, r] of after) if (!before.has(code)) differences.push({ field: 'reason', code, change: 'added', replayed: r.detail });
  if ((stored.recommended_action ?? null) !== (replayed.recommended_action ?? null)) {
    differences.push({
      field: 'recommended_action',
      stored: stored.recommended_action ?? null,
      replayed: replayed.recommended_action ?? null,
    });
  }
  return differences;
}
