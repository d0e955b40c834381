// The default policy as data: per rule, whether it is on, its effect on each event type it runs
// on, its thresholds and windows, and which list wins (README, "Reason codes"). A rule runs
// only when on and only on the event types its `effects` name. Tenants publish their own as
// documents (src/policies/); this one stays the default. Never edit a shipped version in place:
// add a new one (stored events keep theirs, and replay looks the old one up by version).
import type { Effect, EventType } from './types.js';

export type Effects = Partial<Record<EventType, Effect>>;
export type ListName = 'block' | 'allow';

export interface RulePolicy {
  // Absent means on.
  enabled?: boolean;
  effects: Effects;
  // Fires when the count (including this event) is greater than `over`.
  over?: number;
  // A second, harsher step: block when the count is greater than `blockOver`.
  blockOver?: number;
  // Fires when the count (including this event) is at least `atLeast`.
  atLeast?: number;
  windowSeconds?: number;
  maxAmount?: number;
  underDays?: number;
  minAccounts?: number;
  // identity_cluster: without risk on the event, a burst of up to this many accounts is a
  // household or a family, and a larger one on a corporate domain through a place is a team.
  groupAccounts?: number;
  // velocity_ip_signups: 1 makes the `over` step informational for signups on a corporate domain
  // that counted at least as many signups as the address (a team behind its office's address).
  corporateDomain?: number;
  // cluster_trusted: a conversion at least this many days old.
  minDays?: number;
  // cluster_confirmed_abuse: 1 blocks only on evidence Doorman verified (rules/cluster-confirmed-abuse.ts).
  verifiedOnly?: number;
}

// How one identifier kind links (docs/graph.md, "Link policy"); absent fields fall back to the
// `default` section, then to linking for ever at GRAPH_HUB_THRESHOLD.
export interface KindLinkRule {
  links?: boolean;
  hubThreshold?: number;
  // null: links never expire.
  expiryDays?: number | null;
  exclude?: string[];
}

export interface GraphLinkPolicy {
  default?: KindLinkRule;
  kinds?: Record<string, KindLinkRule>;
}

export interface Policy {
  version: string;
  // The identity graph's link policy; absent: every kind links, for ever, at the default hub threshold.
  graph?: GraphLinkPolicy;
  // When an event hits both lists, the first named here decides (block, then allow by default).
  listPrecedence: readonly ListName[];
  rules: Record<string, RulePolicy>;
}

const ALL: EventType[] = ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'];
const on = (effect: Effect, types: EventType[] = ALL): Effects => Object.fromEntries(types.map((t) => [t, effect]));

const HOUR = 3600;
const DAY = 24 * HOUR;

// The default of 2026-11-22 (kept: stored events name it, and replay looks it up).
export const defaultPolicy20261122: Policy = {
  version: '2026-11-22.1',
  listPrecedence: ['block', 'allow'],
  rules: {
    blocklisted: { effects: on('block') },
    allowlisted: { effects: on('allow') },
    cluster_confirmed_abuse: { effects: on('block') },
    malformed_email: { effects: { ...on('review'), signup: 'block', trial_start: 'block' } },
    disposable_email: { effects: { ...on('info'), trial_start: 'block', signup: 'review', checkout_attempt: 'review' } },
    invalid_mx: { effects: on('review', ['signup', 'trial_start']) },
    young_domain: { effects: on('review', ['signup', 'trial_start']), underDays: 30 },
    tor_exit: { effects: { ...on('review'), checkout_attempt: 'block' } },
    proxy_ip: { effects: { ...on('review'), login: 'info' } },
    datacenter_ip: { effects: on('review', ['signup', 'trial_start', 'checkout_attempt']) },
    velocity_ip_signups: { effects: on('review', ['signup']), over: 5, blockOver: 20, windowSeconds: HOUR },
    velocity_device_signups: { effects: on('block', ['signup']), over: 3, windowSeconds: DAY },
    velocity_domain_signups: { effects: on('review', ['signup']), over: 20, windowSeconds: HOUR },
    velocity_card_attempts: { effects: on('block', ['checkout_attempt']), over: 5, windowSeconds: HOUR },
    velocity_ip_card_attempts: { effects: on('block', ['checkout_attempt']), over: 3, windowSeconds: HOUR },
    card_probe_pattern: { effects: on('block', ['checkout_attempt']), atLeast: 5, windowSeconds: 600, maxAmount: 100 },
    prepaid_card: { effects: on('review', ['checkout_attempt']) },
    velocity_cluster_trials: { effects: on('block', ['trial_start']), windowSeconds: 90 * DAY },
    velocity_distinct_cards: { effects: on('review', ['checkout_attempt']), over: 3, windowSeconds: DAY },
    velocity_card_countries: { effects: on('review', ['checkout_attempt']), over: 2, windowSeconds: DAY },
    cluster_chargeback: { effects: { ...on('info'), checkout_attempt: 'review' } },
    ato_new_device: { effects: on('review', ['login']) },
    ato_account_device_burst: { effects: on('block', ['login']), over: 3, windowSeconds: HOUR },
    identity_cluster: { effects: { ...on('info'), signup: 'review', trial_start: 'review' }, minAccounts: 3 },
    cluster_trusted: { effects: on('info'), minDays: 30 },
    timeout_failopen: { effects: on('info') },
    partial_enrichment: { effects: on('info') },
    // Test keys only; the fixture names its own effect (rules/test-fixture.ts).
    test_fixture: { effects: on('info') },
  },
};

// The default policy, 2026-11-25.1 (docs/graph-quality.md measures its choices): the rules of
// 2026-11-22.1, with identity_cluster measuring how fast a cluster formed (accounts first seen in the last day)
// instead of how large it ever grew, cluster_confirmed_abuse blocking on evidence Doorman verified
// (a path through caller-supplied identity values alone reviews), and a link policy: every kind
// links, as the contract requires; a caller-supplied identity value shared by more than 10
// accounts is a hub (a household shares a wifi or a phone, an office or a café more), Doorman's
// own identifiers at 25 (GRAPH_HUB_THRESHOLD caps both); links lapse after 180 days unseen.
export const defaultPolicy20261125: Policy = {
  ...defaultPolicy20261122,
  version: '2026-11-25.1',
  graph: {
    default: { links: true, hubThreshold: 10, expiryDays: 180 },
    kinds: { email: { hubThreshold: 25 }, device: { hubThreshold: 25 }, card: { hubThreshold: 25 } },
  },
  rules: {
    ...defaultPolicy20261122.rules,
    identity_cluster: { effects: { ...on('info'), signup: 'review', trial_start: 'review' }, minAccounts: 3, windowSeconds: DAY },
    cluster_confirmed_abuse: { effects: on('block'), verifiedOnly: 1 },
  },
};

// The default policy, 2026-11-26.1 (docs/graph-quality.md, "Rings past the hub and honest
// groups"): the rules of 2026-11-25.1, with three changes measured on the enlarged population.
// - hub_confirmed_abuse: an account on a hub whose other accounts include confirmed abusers is
//   held; blocked when the hub is a verified identifier that became a hub within a day (a farm).
// - cluster_confirmed_abuse: a block through another account of a cluster of at most 6, with no
//   risk on the event, reviews (a family on one tablet: one member's mark is a lead for the others).
// - identity_cluster judges a burst by its evidence: risk on the event holds it from 3 accounts,
//   a burst of up to 6 without risk is a household or a family, a larger one on a corporate
//   domain through a place is a team; any other burst of more than 6 is held.
// - velocity_device_signups reviews over 5 signups on one device in a day and blocks over 10
//   (a family plan shares one tablet; a farm goes far past it).
// - velocity_ip_signups lets a team through behind its office's address: its review step is
//   informational for signups on a corporate domain that counted as many (its block step stands).
// - A card shared by more than 10 accounts is a hub (25 before): a card pool past a household's
//   size, or a tenant's own test card, links no cluster; hub_confirmed_abuse still reads it.
export const defaultPolicy: Policy = {
  ...defaultPolicy20261125,
  version: '2026-11-26.1',
  graph: {
    ...defaultPolicy20261125.graph,
    kinds: { ...defaultPolicy20261125.graph!.kinds, card: { hubThreshold: 10 } },
  },
  rules: {
    ...defaultPolicy20261125.rules,
    hub_confirmed_abuse: { effects: on('block'), windowSeconds: DAY },
    cluster_confirmed_abuse: { effects: on('block'), verifiedOnly: 1, groupAccounts: 6 },
    identity_cluster: {
      effects: { ...on('info'), signup: 'review', trial_start: 'review' },
      minAccounts: 3,
      groupAccounts: 6,
      windowSeconds: DAY,
    },
    velocity_device_signups: { effects: on('review', ['signup']), over: 5, blockOver: 10, windowSeconds: DAY },
    velocity_ip_signups: { ...defaultPolicy20261125.rules.velocity_ip_signups!, corporateDomain: 1 },
  },
};
