// What a rule is: a code and a pure function from (signals, its policy) to a finding or none.
// A rule runs only on the event types its policy names; rule-table.ts applies that once.
import type { RulePolicy } from './policy.js';
import type { Finding, Signals } from './types.js';

export interface Rule {
  code: string;
  evaluate(signals: Signals, policy: RulePolicy): Omit<Finding, 'code' | 'effect'> & { effect?: Finding['effect'] } | undefined;
}

// Shorthand for rules that fire with the policy's effect for the event type.
export const fired = (detail?: Finding['detail']) => (detail ? { detail } : {});
