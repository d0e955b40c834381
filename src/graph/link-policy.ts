// The tenant's link policy (the `graph` section of its policy document; docs/graph.md, "Link
// policy"): per identifier kind, whether it links at all, the hub threshold, how many days a link
// lasts without being seen again, and values that never link. By default every kind links (the
// contract: unrecognised identity keys are used for identity linking). What a link carries is
// decided here, once, for the verdict and for `doorman graph recluster` alike.
import type { GraphLinkPolicy, KindLinkRule } from '../engine/policy.js';
import { emailIdentity } from '../signals/email/normalize-email.js';

const DAY_MS = 86_400_000;

// One kind's link policy as links and the graph writer carry it.
export interface KindLinkPolicy {
  links: boolean;
  hub: number;
  expiryMs: number | null;
  exclude: string[];
}

export function kindLinkPolicy(policy: GraphLinkPolicy | undefined, kind: string, hubThreshold: number): KindLinkPolicy {
  const base: KindLinkRule = policy?.default ?? {};
  const own: KindLinkRule = policy?.kinds?.[kind] ?? {};
  const expiryDays = own.expiryDays !== undefined ? own.expiryDays : base.expiryDays;
  const exclude = [...(base.exclude ?? []), ...(own.exclude ?? [])].map((v) =>
    kind === 'email' ? (emailIdentity(v) ?? v.trim()) : v.trim(),
  );
  return {
    links: own.links ?? base.links ?? true,
    // GRAPH_HUB_THRESHOLD is the operator's ceiling: no policy makes a bigger hub link.
    hub: Math.min(own.hubThreshold ?? base.hubThreshold ?? hubThreshold, hubThreshold),
    expiryMs: expiryDays === undefined || expiryDays === null ? null : expiryDays * DAY_MS,
    exclude: [...new Set(exclude)],
  };
}

// The whole policy as the graph writer applies it to a scope (recluster).
export function linkPolicyParams(
  policy: GraphLinkPolicy | undefined,
  hubThreshold: number,
): { default: KindLinkPolicy; kinds: Record<string, KindLinkPolicy> } {
  const kinds: Record<string, KindLinkPolicy> = {};
  for (const kind of Object.keys(policy?.kinds ?? {})) kinds[kind] = kindLinkPolicy(policy, kind, hubThreshold);
  // Exclusions of the default section apply to every kind; a kind without its own section gets
  // them from here (an email placeholder is normalised where it is compared).
  return { default: kindLinkPolicy(policy, '\0default', hubThreshold), kinds };
}
