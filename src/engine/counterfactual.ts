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
  // Each single change that gives `to` (or milder), closest to the input first. Empty when no
  // single change is enough (several rules would each have to stop firing).
  changes: (Change & { verdict: Verdict })[];
}

const MILDER: Record<Verdict, Verdict | undefined> = { block: 'review', review: 'allow', allow: undefined };

const distance = (c: Change): number =>
  typeof c.from === 'number' && typeof c.to === 'number' ? Math.abs(c.from - c.to) : 0;

export function counterfactual(signals: Signals, rules: readonly Rule[], policy: Policy): Counterfactual | undefined {
  const decision = evaluate(signals, rules, policy);
  const to = MILDER[decision.verdict];
  if (to === undefined || decision.fault) return undefined;
  const fired = new Set(decision.reasons.map((r) => r.code));
  const changes: Counterfactual['changes'] = [];
  for (const rule of rules) {
    const rulePolicy = policy.rules[rule.code];
    if (!fired.has(rule.code) || !rule.relax || !rulePolicy) continue;
    for (const c of rule.relax(signals, rulePolicy)) {
      const verdict = evaluate(applyChange(signals, c), rules, policy).verdict;
      if (severity(verdict) < severity(decision.verdict)) changes.push({ ...c, verdict });
    }
  }
  // The change that reaches exactly the next milder verdict first, then the smallest change.
  changes.sort((a, b) => Number(b.verdict === to) - Number(a.verdict === to) || distance(a) - distance(b));
  return { from: decision.verdict, to, changes };
}
