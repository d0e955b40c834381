// The default policy as a table (the README's reason codes): for every rule and every event type,
// whether the rule runs and the verdict it gives on its own. Engine level: no stores.
import { expect } from 'chai';
import { defaultPolicy, defaultPolicy20261122, defaultPolicy20261125 } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { EventType } from '../../src/engine/types.js';
import { EVENT_TYPES, FIRES, run } from './engine-builders.js';

type Row = Partial<Record<EventType, 'allow' | 'review' | 'block' | 'info'>>;
const all = (e: 'allow' | 'review' | 'block' | 'info'): Row => Object.fromEntries(EVENT_TYPES.map((t) => [t, e]));

// What the default policy promises, event type by event type; absent means the rule does not run.
const EXPECTED: Record<string, Row> = {
  blocklisted: all('block'),
  allowlisted: all('allow'),
  cluster_confirmed_abuse: all('block'),
  hub_confirmed_abuse: all('block'),
  malformed_email: { signup: 'block', trial_start: 'block', trial_convert: 'review', checkout_attempt: 'review', login: 'review' },
  disposable_email: { signup: 'review', trial_start: 'block', trial_convert: 'info', checkout_attempt: 'review', login: 'info' },
  invalid_mx: { signup: 'review', trial_start: 'review' },
  young_domain: { signup: 'review', trial_start: 'review' },
  tor_exit: { signup: 'review', trial_start: 'review', trial_convert: 'review', checkout_attempt: 'block', login: 'review' },
  proxy_ip: { signup: 'review', trial_start: 'review', trial_convert: 'review', checkout_attempt: 'review', login: 'info' },
  datacenter_ip: { signup: 'review', trial_start: 'review', checkout_attempt: 'review' },
  velocity_ip_signups: { signup: 'review' },
  velocity_device_signups: { signup: 'block' },
  velocity_domain_signups: { signup: 'review' },
  velocity_card_attempts: { checkout_attempt: 'block' },
  velocity_ip_card_attempts: { checkout_attempt: 'block' },
  card_probe_pattern: { checkout_attempt: 'block' },
  prepaid_card: { checkout_attempt: 'review' },
  velocity_cluster_trials: { trial_start: 'block' },
  velocity_distinct_cards: { checkout_attempt: 'review' },
  velocity_card_countries: { checkout_attempt: 'review' },
  cluster_chargeback: { ...all('info'), checkout_attempt: 'review' },
  ato_new_device: { login: 'review' },
  ato_account_device_burst: { login: 'block' },
  identity_cluster: { ...all('info'), signup: 'review', trial_start: 'review' },
  cluster_trusted: all('info'),
  timeout_failopen: all('info'),
  partial_enrichment: all('info'),
  // The fixture's own outcome decides (here a `review` fixture); test keys only (collector).
  test_fixture: all('review'),
};

describe('engine: the default policy, rule by rule and event type by event type', () => {
  it('has a row here for every rule in the table, and a policy entry for each', () => {
    expect(defaultRules.map((r) => r.code).sort()).to.deep.equal(Object.keys(EXPECTED).sort());
    expect(Object.keys(defaultPolicy.rules).sort()).to.deep.equal(Object.keys(EXPECTED).sort());
    expect(defaultPolicy.version).to.match(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    expect(defaultPolicy.listPrecedence).to.deep.equal(['block', 'allow']);
  });

  for (const [code, row] of Object.entries(EXPECTED)) {
    for (const eventType of EVENT_TYPES) {
      const effect = row[eventType];
      it(`${code} on ${eventType}: ${effect ?? 'does not run'}`, () => {
        const d = run({ ...FIRES[code], eventType });
        const codes = d.reasons.map((r) => r.code);
        if (effect === undefined) {
          expect(codes).to.not.include(code);
          expect(d.verdict).to.equal('allow');
        } else {
          expect(codes).to.include(code);
          expect(d.verdict).to.equal(effect === 'info' ? 'allow' : effect);
        }
      });
    }
  }
});

// The shipped versions and what each changed (README, "Reason codes"; docs/graph-quality.md):
// 2026-11-25.1 identity_cluster over a day, verified-only blocking and a link policy (candidate C);
// 2026-11-26.1 hub_confirmed_abuse, identity_cluster judged by evidence, and a device velocity a
// family plan passes.
describe('engine: the shipped default policies', () => {
  it('2026-11-26.1 is the default, and 2026-11-25.1 and 2026-11-22.1 are still shipped for stored events and replay', () => {
    expect(defaultPolicy.version).to.equal('2026-11-26.1');
    expect(defaultPolicy20261125.version).to.equal('2026-11-25.1');
    expect(defaultPolicy20261122.version).to.equal('2026-11-22.1');
    expect(run({}).policyVersion).to.equal('2026-11-26.1');
    expect(run({}, defaultPolicy20261125).policyVersion).to.equal('2026-11-25.1');
    expect(run({}, defaultPolicy20261122).policyVersion).to.equal('2026-11-22.1');
    expect(defaultPolicy20261122.listPrecedence).to.deep.equal(['block', 'allow']);
  });

  it('2026-11-25.1 links every kind, an identity value up to 10 accounts and an email, device or card up to 25, for 180 days unseen; 2026-11-26.1 a card up to 10', () => {
    expect(defaultPolicy.graph).to.deep.equal({
      default: { links: true, hubThreshold: 10, expiryDays: 180 },
      kinds: { email: { hubThreshold: 25 }, device: { hubThreshold: 25 }, card: { hubThreshold: 10 } },
    });
    expect(defaultPolicy20261125.graph).to.deep.equal({
      default: { links: true, hubThreshold: 10, expiryDays: 180 },
      kinds: { email: { hubThreshold: 25 }, device: { hubThreshold: 25 }, card: { hubThreshold: 25 } },
    });
  });

  it('2026-11-22.1 has no link policy: every kind links, for ever, at GRAPH_HUB_THRESHOLD', () => {
    expect(defaultPolicy20261122.graph).to.equal(undefined);
  });

  it('2026-11-25.1 counts identity_cluster over a day and blocks confirmed abuse on verified evidence only', () => {
    expect(defaultPolicy20261125.rules.identity_cluster).to.deep.equal({
      effects: { signup: 'review', trial_start: 'review', trial_convert: 'info', checkout_attempt: 'info', login: 'info' },
      minAccounts: 3,
      windowSeconds: 86_400,
    });
    expect(defaultPolicy20261125.rules.cluster_confirmed_abuse).to.deep.equal({ effects: all('block'), verifiedOnly: 1 });
  });

  it('2026-11-22.1 counted every account identity_cluster ever linked and blocked on any confirmed abuse', () => {
    expect(defaultPolicy20261122.rules.identity_cluster).to.deep.equal({
      effects: { signup: 'review', trial_start: 'review', trial_convert: 'info', checkout_attempt: 'info', login: 'info' },
      minAccounts: 3,
    });
    expect(defaultPolicy20261122.rules.cluster_confirmed_abuse).to.deep.equal({ effects: all('block') });
  });

  it('2026-11-25.1 changed nothing else: every other rule is 2026-11-22.1 as it was', () => {
    const { identity_cluster: _a, cluster_confirmed_abuse: _b, ...rest } = defaultPolicy20261125.rules;
    const { identity_cluster: _c, cluster_confirmed_abuse: _d, ...restBefore } = defaultPolicy20261122.rules;
    expect(rest).to.deep.equal(restBefore);
    const { hub_confirmed_abuse: _e, ...before26 } = EXPECTED;
    expect(Object.keys(defaultPolicy20261122.rules).sort()).to.deep.equal(Object.keys(before26).sort());
  });

  it('2026-11-26.1 adds hub_confirmed_abuse (blocking on a farm only), judges identity_cluster bursts and convictions in groups of up to 6 by evidence, reviews a device over 5 signups a day, blocking over 10, and lets a team through behind its office address', () => {
    expect(defaultPolicy.rules.hub_confirmed_abuse).to.deep.equal({ effects: all('block'), windowSeconds: 86_400 });
    expect(defaultPolicy.rules.identity_cluster).to.deep.equal({
      effects: { signup: 'review', trial_start: 'review', trial_convert: 'info', checkout_attempt: 'info', login: 'info' },
      minAccounts: 3,
      groupAccounts: 6,
      windowSeconds: 86_400,
    });
    expect(defaultPolicy.rules.velocity_device_signups).to.deep.equal({
      effects: { signup: 'review' },
      over: 5,
      blockOver: 10,
      windowSeconds: 86_400,
    });
    expect(defaultPolicy20261125.rules.velocity_device_signups).to.deep.equal({
      effects: { signup: 'block' },
      over: 3,
      windowSeconds: 86_400,
    });
    expect(defaultPolicy.rules.velocity_ip_signups).to.deep.equal({
      ...defaultPolicy20261125.rules.velocity_ip_signups,
      corporateDomain: 1,
    });
    expect(defaultPolicy.rules.cluster_confirmed_abuse).to.deep.equal({ effects: all('block'), verifiedOnly: 1, groupAccounts: 6 });
    const {
      hub_confirmed_abuse: _a,
      identity_cluster: _b,
      velocity_device_signups: _c,
      velocity_ip_signups: _f,
      cluster_confirmed_abuse: _h,
      ...rest
    } = defaultPolicy.rules;
    const {
      identity_cluster: _d,
      velocity_device_signups: _e,
      velocity_ip_signups: _g,
      cluster_confirmed_abuse: _i,
      ...restBefore
    } = defaultPolicy20261125.rules;
    expect(rest).to.deep.equal(restBefore);
  });
});
