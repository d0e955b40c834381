// identity_cluster: the event's cluster links more than one account. Informational below
// `minAccounts`; at or above it, the policy's effect (review on signup and trial_start).
import type { Rule } from '../rule.js';

export const identityCluster: Rule = {
  code: 'identity_cluster',
  evaluate: (s, p) => {
    const n = s.graph?.linkedAccounts ?? 0;
    if (n <= 1) return undefined;
    const detail = { linked_accounts: n };
    return n >= (p.minAccounts ?? 3) ? { detail } : { detail, effect: 'info' };
  },
};
