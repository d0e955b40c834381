// What a rule is: a code and a pure function from (signals, its policy) to a finding or none.
// A rule runs only on the event types its policy names; evaluate.ts applies that once. A rule
// may also say which single change of input would stop it firing, or step it down (`relax`):
// the counterfactual is built from these, so it follows the policy's thresholds.
import type { RulePolicy } from './policy.js';
import type { Finding, Scalar, Signals } from './types.js';

// One change of one input, named by its path in the stored signals (`velocity.ipSignups`).
export interface Change {
  input: string;
  from: Scalar | null;
  to: Scalar | null;
  // The policy entry whose threshold gives `to` (`velocity_ip_signups.over`), or the rule code.
  rule: string;
}

export interface Rule {
  code: string;
  evaluate(signals: Signals, policy: RulePolicy): (Omit<Finding, 'code' | 'effect'> & { effect?: Finding['effect'] }) | undefined;
  // Asked only of a rule that fired; a change that does not give a milder verdict is dropped.
  relax?(signals: Signals, policy: RulePolicy): Change[];
}

// Shorthand for rules that fire with the policy's effect for the event type.
export const fired = (detail?: Finding['detail']) => (detail ? { detail } : {});

type Group = 'email' | 'ip' | 'payment' | 'velocity' | 'graph';

// A change to one field of one signal group (`graph.confirmedAbuse` → false).
export function change(group: Group, field: string, from: Scalar | null | undefined, to: Scalar | null, rule: string): Change {
  return { input: `${group}.${field}`, from: from ?? null, to, rule };
}

// The signals with one change applied: lists lose their block hits; a field gets its new value.
export function applyChange(signals: Signals, c: Change): Signals {
  if (c.input === 'lists.block') return { ...signals, lists: (signals.lists ?? []).filter((h) => h.list !== 'block') };
  const [group, field] = c.input.split('.') as [Group, string];
  return { ...signals, [group]: { ...(signals[group] as object), [field]: c.to } };
}
