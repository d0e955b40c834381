// identity_cluster: the event's cluster links more than one account (`linked_accounts`; `via_kinds`,
// the identifier kinds that link this account to the others, comma-separated). Informational
// below `minAccounts`; at or above it, the policy's effect (review on signup and trial_start).
// With `windowSeconds`, what is compared is how fast the cluster formed: the accounts first seen
// within the window (`count`), so a household that grew over months is not held like a ring that
// signed up in an afternoon.
// With `groupAccounts`, a burst is judged by its evidence as well as its count, since honest
// groups arrive together too (a family plan on one tablet, a team invited in an afternoon):
// - risk on this event (a disposable email; a Tor, proxy or datacenter address), or accounts
//   linked through one email (one mailbox behind several accounts: `shared_email`), holds it from
//   `minAccounts` on (rule `identity_cluster.min_accounts`, `evidence` naming it);
// - without risk, a burst of up to `groupAccounts` is a household or a family (`group`
//   'household', informational);
// - beyond it, a burst linked only through caller-supplied values (a network, an address) whose
//   email is on a corporate domain (not free-mail, not disposable, with MX, registered a year or
//   more ago) that other signups used within the domain velocity window is a team onboarding
//   (`group` 'team', informational);
// - any other burst beyond `groupAccounts` is held (rule `identity_cluster.group_accounts`).
import type { RulePolicy } from '../policy.js';
import { change, type Change, type Rule } from '../rule.js';
import type { Signals } from '../types.js';
import { corporateEmail, eventRisk as risk, VERIFIED_KINDS } from './group-evidence.js';

// A colleague's signup: an address on a company's own domain that others signed up on lately,
// in a cluster held together by a place, not by a device, a card or an email.
function team(s: Signals): boolean {
  const through = s.graph?.viaKinds ?? [];
  return corporateEmail(s) && (s.velocity?.domainSignups ?? 0) >= 2 && through.length > 0 && !through.some((k) => VERIFIED_KINDS.has(k));
}

function judge(s: Signals, p: RulePolicy, count: number): { rule?: string; evidence?: string; group?: string } {
  const min = p.minAccounts ?? Number.MAX_SAFE_INTEGER;
  if (count < min) return {};
  if (p.groupAccounts === undefined) return { rule: 'identity_cluster.min_accounts' };
  // One mailbox behind several accounts is one person's, not a group's.
  const evidence = risk(s) ?? (s.graph?.viaKinds?.includes('email') ? 'shared_email' : undefined);
  if (evidence) return { rule: 'identity_cluster.min_accounts', evidence };
  if (count <= p.groupAccounts) return { group: 'household' };
  if (team(s)) return { group: 'team' };
  return { rule: 'identity_cluster.group_accounts' };
}

export const identityCluster: Rule = {
  code: 'identity_cluster',
  evaluate: (s, p) => {
    const g = s.graph;
    const n = g?.linkedAccounts ?? 0;
    if (!g || n <= 1) return undefined;
    const min = p.minAccounts ?? Number.MAX_SAFE_INTEGER;
    const windowed = p.windowSeconds !== undefined;
    const count = windowed ? Math.min(n, g.recentAccounts ?? n) : n;
    const { rule, evidence, group } = judge(s, p, count);
    const detail = {
      linked_accounts: n,
      count,
      threshold: rule === 'identity_cluster.group_accounts' ? p.groupAccounts! : min,
      ...(windowed && { window_seconds: p.windowSeconds! }),
      ...(g.viaKinds && { via_kinds: g.viaKinds.join(',') }),
      ...(evidence && { evidence }),
      ...(group && { group }),
    };
    return rule ? { detail: { ...detail, rule } } : { detail, effect: 'info' };
  },
  relax: (s, p) => {
    const field = p.windowSeconds !== undefined && s.graph?.recentAccounts !== undefined ? 'recentAccounts' : 'linkedAccounts';
    const from = s.graph?.[field];
    const changes: Change[] = [];
    // Below the group size, a burst without risk is a household: the count that would be one.
    if (p.groupAccounts !== undefined && risk(s) === undefined && !s.graph?.viaKinds?.includes('email'))
      changes.push(change('graph', field, from, p.groupAccounts, 'identity_cluster.group_accounts'));
    changes.push(change('graph', field, from, (p.minAccounts ?? 1) - 1, 'identity_cluster.min_accounts'));
    return changes;
  },
};
