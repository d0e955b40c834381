// The counterfactual of a review or block: which single change of input would have given the
// next milder verdict. Candidates come from the rules that pushed the verdict up, each naming
// the value its policy threshold allows (rule.relax), so nothing is guessed; each candidate is
// then judged by evaluate() itself, with every precedence, suppression and trust branch.
import { evaluate, severity } from './evaluate.js';
import type { Policy } from './policy.js';
import { applyChange, type Change, type Rule } from './rule.js';
import type { Signals, Verdict } from './types.js';

export interface Counterfactual {
  from: Verdict;
  // The next milder verdict.
  to: Verdict;
  // Each single change that gives a milder verdict, in rule order, each rule's nearest step
  // first. Empty when no single change is enough (several rules would each have to stop firing).
  changes: (Change & { verdict: Verdict })[];
}

const MILDER: Record<Verdict, Verdict | undefined> = { block: 'review', review: 'allow', allow: undefined };

export function counterfactual(signals: Signals, rules: readonly Rule[], policy: Policy): Counterfactual | undefined {
  const decision = evaluate(signals, rules, policy);
  const to = MILDER[decision.verdict];
  // A decision that failed open is an allow: it has none.
  if (to === undefined) return undefined;
  const fired = new Set(decision.reasons.map((r) => r.code));
  const changes: Counterfactual['changes'] = [];
  for (const rule of rules) {
    if (!fired.has(rule.code) || !rule.relax) continue;
    for (const c of rule.relax(signals, policy.rules[rule.code]!)) {
      const judged = evaluate(applyChange(signals, c), rules, policy);
      // A change under which a rule throws proves nothing.
      if (!judged.fault && severity(judged.verdict) < severity(decision.verdict)) changes.push({ ...c, verdict: judged.verdict });
    }
  }
  return { from: decision.verdict, to, changes };
}
