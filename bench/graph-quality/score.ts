// Scores every decision of a graph-quality run against the population's truth
// (docs/graph-quality.md): innocent people convicted or held by a cluster reason, ring events
// caught by one after the ring's first confirmed member, and the final clusters' pairwise
// precision and recall against the truth's groups.
import type { Population, Setting } from './population.js';

export interface Decision {
  person: number;
  at: number;
  eventType: string;
  attack: boolean;
  verdict: string;
  reasons: { code: string; detail?: Record<string, unknown> }[];
}

export const CLUSTER_CODES = [
  'identity_cluster',
  'cluster_confirmed_abuse',
  'hub_confirmed_abuse',
  'velocity_cluster_trials',
  'cluster_chargeback',
  'velocity_distinct_cards',
  'velocity_card_countries',
];

// A cluster reason that took effect: on a verdict that is not allow, not informational
// (identity_cluster only at its review step, which names its `rule`).
function clusterEffect(d: Decision): boolean {
  if (d.verdict === 'allow') return false;
  return d.reasons.some((r) => CLUSTER_CODES.includes(r.code) && (r.code !== 'identity_cluster' || (r.detail && 'rule' in r.detail)));
}
// Convicted through the graph: blocked by a mark in the cluster or on a hub's other accounts.
const CONVICTION_CODES = ['cluster_confirmed_abuse', 'hub_confirmed_abuse'];
const convicted = (d: Decision) => d.verdict === 'block' && d.reasons.some((r) => CONVICTION_CODES.includes(r.code));

// Rings larger than this share identifiers past the identity hub threshold of the default policy.
export const HUB_RING_SIZE = 10;

// Signups of an honest group that arrives together: how many, held or blocked for any reason, by
// a cluster reason, and the codes that stopped them (counted once per signup).
export interface GroupSignups {
  signups: number;
  held_or_blocked: number;
  held_or_blocked_rate: number;
  by_cluster_reason: number;
  codes: Record<string, number>;
}

export interface Scores {
  honest_people: number;
  // Honest people blocked by cluster_confirmed_abuse (attack events on their account aside).
  innocent_blocked: number;
  innocent_blocked_rate: number;
  // Of those, the people a mistaken mark was about (the caller's own statement), and the others
  // (convicted through the graph alone).
  innocent_blocked_marked_themselves: number;
  innocent_blocked_through_graph: number;
  innocent_blocked_through_graph_rate: number;
  innocent_blocked_by_setting: Partial<Record<Setting, number>>;
  // Those convicted through the graph alone, by setting and conviction code ('household cluster_confirmed_abuse').
  innocent_blocked_through_graph_by: Record<string, number>;
  innocent_cluster_reason_rate: number;
  honest_signups: number;
  honest_signups_held: number;
  honest_signups_held_rate: number;
  // Of those, by setting and by the cluster codes that took effect (counted once per signup).
  honest_signups_held_by: Partial<Record<Setting, Record<string, number>>>;
  ring_events_after_first_confirmation: number;
  ring_recall: number;
  // Members of rings larger than HUB_RING_SIZE with an event after their ring's first
  // confirmation, and of them those given a cluster reason that took effect on one.
  hub_ring_members: number;
  hub_ring_members_flagged: number;
  hub_ring_member_recall: number;
  // Ring recall by ring size (events after the first confirmation, caught).
  ring_recall_by_size: Record<string, { events: number; caught: number; recall: number }>;
  // The ring events missed, by what the ring shares, the event type and the verdict ('card|login|allow').
  ring_missed_by: Record<string, number>;
  team_onboarding: GroupSignups;
  family_plan: GroupSignups;
  takeover_logins: number;
  takeovers_caught: number;
  pairwise_precision: number;
  pairwise_recall: number;
  // The pairs fused wrongly at the end, by the settings of the two people ('office+office').
  false_pairs_by_setting: Record<string, number>;
  // What the people of wrongly fused pairs share in their events, by shared identifiers ('phone').
  false_pairs_by_shared: Record<string, number>;
  largest_cluster: number;
  clusters: number;
}

const rate = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 10_000) / 10_000);

export function score(
  pop: Population,
  decisions: Decision[],
  clusterOf: Map<string, string>,
  confirmations: { at: number; account: string; mistaken: boolean }[],
): Scores {
  const byId = new Map(pop.people.map((p) => [p.id, p]));
  const honest = pop.people.filter((p) => p.honest);
  const markedByMistake = new Set(confirmations.filter((c) => c.mistaken).map((c) => c.account));
  const blocked = new Set<number>();
  const blockedBy = new Map<number, string>();
  const missed: Record<string, number> = {};
  const withReason = new Set<number>();
  let signups = 0;
  let held = 0;
  let ringAfter = 0;
  let ringCaught = 0;
  let takeovers = 0;
  let takeoversCaught = 0;
  const ringSize = new Map<string, number>();
  for (const p of pop.people) if (!p.honest) ringSize.set(p.group, (ringSize.get(p.group) ?? 0) + 1);
  const sizeBucket = (n: number) => (n <= HUB_RING_SIZE ? `4-${HUB_RING_SIZE}` : n <= 25 ? `${HUB_RING_SIZE + 1}-25` : '26+');
  const bySize: Scores['ring_recall_by_size'] = {};
  const hubMembers = new Map<number, boolean>();
  const group = (): GroupSignups => ({ signups: 0, held_or_blocked: 0, held_or_blocked_rate: 0, by_cluster_reason: 0, codes: {} });
  const groups: Partial<Record<Setting, GroupSignups>> = { team: group(), family: group() };
  const heldBy: Scores['honest_signups_held_by'] = {};
  // The first confirmed_abuse of each ring (a ring's members' accounts).
  const firstConfirmed = new Map<string, number>();
  for (const c of confirmations) {
    if (c.mistaken) continue;
    const p = pop.people.find((x) => x.account === c.account);
    if (p && !firstConfirmed.has(p.group)) firstConfirmed.set(p.group, c.at);
  }
  for (const d of decisions) {
    const p = byId.get(d.person)!;
    if (d.attack) {
      takeovers += 1;
      if (d.verdict !== 'allow') takeoversCaught += 1;
      continue;
    }
    if (p.honest) {
      if (convicted(d)) {
        blocked.add(p.id);
        if (!blockedBy.has(p.id)) blockedBy.set(p.id, d.reasons.find((r) => CONVICTION_CODES.includes(r.code))!.code);
      }
      if (clusterEffect(d)) withReason.add(p.id);
      if (d.eventType === 'signup') {
        signups += 1;
        if (d.verdict !== 'allow' && clusterEffect(d)) {
          held += 1;
          const by = (heldBy[p.setting] ??= {});
          for (const code of new Set(d.reasons.map((r) => r.code).filter((c) => CLUSTER_CODES.includes(c)))) by[code] = (by[code] ?? 0) + 1;
        }
        const g = groups[p.setting];
        if (g) {
          g.signups += 1;
          if (d.verdict !== 'allow') {
            g.held_or_blocked += 1;
            if (clusterEffect(d)) g.by_cluster_reason += 1;
            for (const code of new Set(d.reasons.map((r) => r.code))) g.codes[code] = (g.codes[code] ?? 0) + 1;
          }
        }
      }
    } else {
      const first = firstConfirmed.get(p.group);
      if (first !== undefined && d.at > first) {
        const caught = clusterEffect(d);
        ringAfter += 1;
        if (caught) ringCaught += 1;
        else {
          const key = `${Object.keys(pop.shared[p.group] ?? {})
            .sort()
            .join(',')}|${d.eventType}|${d.verdict}`;
          missed[key] = (missed[key] ?? 0) + 1;
        }
        const size = ringSize.get(p.group) ?? 0;
        const b = (bySize[sizeBucket(size)] ??= { events: 0, caught: 0, recall: 0 });
        b.events += 1;
        if (caught) b.caught += 1;
        if (size > HUB_RING_SIZE) hubMembers.set(p.id, (hubMembers.get(p.id) ?? false) || caught);
      }
    }
  }
  const bySetting: Partial<Record<Setting, number>> = {};
  let themselves = 0;
  const throughGraphBy: Record<string, number> = {};
  for (const id of blocked) {
    const p = byId.get(id)!;
    bySetting[p.setting] = (bySetting[p.setting] ?? 0) + 1;
    if (markedByMistake.has(p.account)) themselves += 1;
    else {
      const key = `${p.setting} ${blockedBy.get(id)}`;
      throughGraphBy[key] = (throughGraphBy[key] ?? 0) + 1;
    }
  }

  // Pairwise precision and recall of the final clusters against the truth's groups.
  const accounts = pop.people.map((p) => ({
    id: p.id,
    group: p.group,
    setting: p.setting,
    cluster: clusterOf.get(p.account) ?? `alone:${p.account}`,
  }));
  const members = new Map<string, typeof accounts>();
  for (const a of accounts) if (!a.cluster.startsWith('alone:')) members.set(a.cluster, [...(members.get(a.cluster) ?? []), a]);
  const falsePairs: Record<string, number> = {};
  const falseShared: Record<string, number> = {};
  const idsOf = new Map<number, Set<string>>();
  for (const e of pop.events) {
    if (e.attack) continue;
    const set = idsOf.get(e.person) ?? new Set<string>();
    for (const [k, v] of Object.entries((e.body.identity ?? {}) as Record<string, string>)) set.add(`${k}=${v}`);
    if (e.device) set.add(`device=${e.device}`);
    const card = (e.body.payment as { card_fingerprint?: string } | undefined)?.card_fingerprint;
    if (card) set.add(`card=${card}`);
    idsOf.set(e.person, set);
  }
  for (const m of members.values())
    for (let i = 0; i < m.length; i++)
      for (let j = i + 1; j < m.length; j++) {
        if (m[i]!.group === m[j]!.group) continue;
        const key = [m[i]!.setting, m[j]!.setting].sort().join('+');
        falsePairs[key] = (falsePairs[key] ?? 0) + 1;
        const b = idsOf.get(m[j]!.id) ?? new Set<string>();
        const common = [...(idsOf.get(m[i]!.id) ?? [])].filter((x) => b.has(x)).map((x) => x.split('=')[0]);
        const shared = [...new Set(common)].sort().join(',') || 'nothing directly';
        falseShared[shared] = (falseShared[shared] ?? 0) + 1;
      }
  const pairs = (key: (a: { group: string; cluster: string }) => string) => {
    const counts = new Map<string, number>();
    for (const a of accounts) counts.set(key(a), (counts.get(key(a)) ?? 0) + 1);
    return [...counts.values()].reduce((s, n) => s + (n * (n - 1)) / 2, 0);
  };
  const predicted = pairs((a) => a.cluster);
  const truth = pairs((a) => a.group);
  const both = pairs((a) => `${a.cluster}\0${a.group}`);
  const sizes = new Map<string, number>();
  for (const a of accounts) if (!a.cluster.startsWith('alone:')) sizes.set(a.cluster, (sizes.get(a.cluster) ?? 0) + 1);

  for (const b of Object.values(bySize)) b.recall = rate(b.caught, b.events);
  for (const g of Object.values(groups)) g.held_or_blocked_rate = rate(g.held_or_blocked, g.signups);
  const hubFlagged = [...hubMembers.values()].filter(Boolean).length;

  return {
    honest_people: honest.length,
    innocent_blocked: blocked.size,
    innocent_blocked_rate: rate(blocked.size, honest.length),
    innocent_blocked_marked_themselves: themselves,
    innocent_blocked_through_graph: blocked.size - themselves,
    innocent_blocked_through_graph_rate: rate(blocked.size - themselves, honest.length),
    innocent_blocked_by_setting: bySetting,
    innocent_blocked_through_graph_by: throughGraphBy,
    innocent_cluster_reason_rate: rate(withReason.size, honest.length),
    honest_signups: signups,
    honest_signups_held: held,
    honest_signups_held_rate: rate(held, signups),
    honest_signups_held_by: heldBy,
    ring_events_after_first_confirmation: ringAfter,
    ring_recall: rate(ringCaught, ringAfter),
    hub_ring_members: hubMembers.size,
    hub_ring_members_flagged: hubFlagged,
    hub_ring_member_recall: rate(hubFlagged, hubMembers.size),
    ring_recall_by_size: bySize,
    ring_missed_by: missed,
    team_onboarding: groups.team!,
    family_plan: groups.family!,
    takeover_logins: takeovers,
    takeovers_caught: takeoversCaught,
    pairwise_precision: rate(both, predicted),
    pairwise_recall: rate(both, truth),
    false_pairs_by_setting: falsePairs,
    false_pairs_by_shared: falseShared,
    largest_cluster: Math.max(0, ...sizes.values()),
    clusters: sizes.size,
  };
}
