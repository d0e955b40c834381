// identity_cluster: the event's cluster links more than one account. Informational below
// `minAccounts`; at or above it, the policy's effect (review on signup and trial_start).
import { change, type Rule } from '../rule.js';

export const identityCluster: Rule = {
  code: 'identity_cluster',
  evaluate: (s, p) => {
    const n = s.graph?.linkedAccounts ?? 0;
    if (n <= 1) return undefined;
    const min = p.minAccounts ?? Number.MAX_SAFE_INTEGER;
    const detail = { linked_accounts: n, count: n, threshold: min };
    return n >= min ? { detail: { ...detail, rule: 'identity_cluster.min_accounts' } } : { detail, effect: 'info' };
  },
  relax: (s, p) => [change('graph', 'linkedAccounts', s.graph?.linkedAccounts, (p.minAccounts ?? 1) - 1, 'identity_cluster.min_accounts')],
};
