// identity_cluster: the event's cluster links more than one account (`linked_accounts`; `via_kinds`,
// the identifier kinds that link this account to the others, comma-separated). Informational
// below `minAccounts`; at or above it, the policy's effect (review on signup and trial_start).
// With `windowSeconds`, what is compared is how fast the cluster formed: the accounts first seen
// within the window (`count`), so a household that grew over months is not held like a ring that
// signed up in an afternoon.
import { change, type Rule } from '../rule.js';

export const identityCluster: Rule = {
  code: 'identity_cluster',
  evaluate: (s, p) => {
    const g = s.graph;
    const n = g?.linkedAccounts ?? 0;
    if (!g || n <= 1) return undefined;
    const min = p.minAccounts ?? Number.MAX_SAFE_INTEGER;
    const windowed = p.windowSeconds !== undefined;
    const count = windowed ? Math.min(n, g.recentAccounts ?? n) : n;
    const detail = {
      linked_accounts: n,
      count,
      threshold: min,
      ...(windowed && { window_seconds: p.windowSeconds! }),
      ...(g.viaKinds && { via_kinds: g.viaKinds.join(',') }),
    };
    return count >= min ? { detail: { ...detail, rule: 'identity_cluster.min_accounts' } } : { detail, effect: 'info' };
  },
  // Signals stored before windows existed carry no recentAccounts: their count is linkedAccounts.
  relax: (s, p) =>
    p.windowSeconds !== undefined && s.graph?.recentAccounts !== undefined
      ? [change('graph', 'recentAccounts', s.graph?.recentAccounts, (p.minAccounts ?? 1) - 1, 'identity_cluster.min_accounts')]
      : [change('graph', 'linkedAccounts', s.graph?.linkedAccounts, (p.minAccounts ?? 1) - 1, 'identity_cluster.min_accounts')],
};
