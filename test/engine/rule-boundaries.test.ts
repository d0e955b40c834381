// Every threshold rule at its boundaries (threshold − 1, threshold, threshold + 1, window
// edges), with the exact detail it carries: count, threshold, window_seconds and the policy
// entry that fired (`rule`). Engine level, default policy unless a row says otherwise.
import { expect } from 'chai';
import type { Policy } from '../../src/engine/policy.js';
import type { Signals } from '../../src/engine/types.js';
import { email, graph, run, withRule } from './engine-builders.js';

type Detail = Record<string, string | number | boolean> | undefined;
interface Row {
  name: string;
  signals: Partial<Signals>;
  verdict: 'allow' | 'review' | 'block';
  code: string;
  // undefined: the code must not appear at all.
  detail?: Detail | 'absent';
  // The default policy unless given.
  policy?: Policy;
}

const velocity = (code: string, field: string, eventType: Signals['eventType'], n: number) => ({ eventType, velocity: { [field]: n } });
const detail = (count: number, threshold: number, window: number, rule: string) => ({ count, threshold, window_seconds: window, rule });

const ROWS: Row[] = [
  // velocity_ip_signups: review above 5 in 1 h, block above 20.
  {
    name: '5 signups from an ip',
    signals: velocity('velocity_ip_signups', 'ipSignups', 'signup', 5),
    verdict: 'allow',
    code: 'velocity_ip_signups',
  },
  {
    name: '6 signups from an ip',
    signals: velocity('', 'ipSignups', 'signup', 6),
    verdict: 'review',
    code: 'velocity_ip_signups',
    detail: detail(6, 5, 3600, 'velocity_ip_signups.over'),
  },
  {
    name: '20 signups from an ip',
    signals: velocity('', 'ipSignups', 'signup', 20),
    verdict: 'review',
    code: 'velocity_ip_signups',
    detail: detail(20, 5, 3600, 'velocity_ip_signups.over'),
  },
  {
    name: '21 signups from an ip',
    signals: velocity('', 'ipSignups', 'signup', 21),
    verdict: 'block',
    code: 'velocity_ip_signups',
    detail: detail(21, 20, 3600, 'velocity_ip_signups.block_over'),
  },
  // velocity_ip_signups behind an office's address (corporate_domain 1): a signup on a company's
  // domain that counted as many signups is a colleague's; the block step stands.
  {
    name: '9 signups from an ip, a corporate domain with 9 this hour',
    signals: {
      eventType: 'signup',
      email: email({ mx: 'ok', domain: 'acme.example', domainAgeDays: 4000 }),
      velocity: { ipSignups: 9, domainSignups: 9 },
    },
    verdict: 'allow',
    code: 'velocity_ip_signups',
    detail: { ...detail(9, 5, 3600, 'velocity_ip_signups.over'), group: 'team' },
  },
  {
    name: 'under a policy without corporate_domain, 9 signups from an ip, a corporate domain with 9 this hour',
    signals: {
      eventType: 'signup',
      email: email({ mx: 'ok', domain: 'acme.example', domainAgeDays: 4000 }),
      velocity: { ipSignups: 9, domainSignups: 9 },
    },
    policy: withRule('velocity_ip_signups', { corporateDomain: undefined }),
    verdict: 'review',
    code: 'velocity_ip_signups',
    detail: detail(9, 5, 3600, 'velocity_ip_signups.over'),
  },
  {
    name: '9 signups from an ip, a corporate domain with 8 this hour',
    signals: {
      eventType: 'signup',
      email: email({ mx: 'ok', domain: 'acme.example', domainAgeDays: 4000 }),
      velocity: { ipSignups: 9, domainSignups: 8 },
    },
    verdict: 'review',
    code: 'velocity_ip_signups',
    detail: detail(9, 5, 3600, 'velocity_ip_signups.over'),
  },
  ...(
    [
      ['free-mail', { freemail: true }],
      ['disposable', { disposable: true }],
      ['without MX', { mx: 'no_mx' }],
      ['of unknown age', { domainAgeDays: undefined }],
      ['registered 364 days ago', { domainAgeDays: 364 }],
    ] as const
  ).map(([what, e]) => ({
    name: `9 signups from an ip, a domain ${what} with 9 this hour`,
    signals: {
      eventType: 'signup' as const,
      email: email({ mx: 'ok', domainAgeDays: 4000, ...e }),
      velocity: { ipSignups: 9, domainSignups: 9 },
    },
    verdict: 'review' as const,
    code: 'velocity_ip_signups',
    detail: detail(9, 5, 3600, 'velocity_ip_signups.over'),
  })),
  {
    name: '21 signups from an ip, a corporate domain with 21 this hour',
    signals: { eventType: 'signup', email: email({ mx: 'ok', domainAgeDays: 4000 }), velocity: { ipSignups: 21, domainSignups: 21 } },
    verdict: 'block',
    code: 'velocity_ip_signups',
    detail: detail(21, 20, 3600, 'velocity_ip_signups.block_over'),
  },
  // velocity_device_signups: review above 5 in 24 h (a family plan shares one tablet), block above 10.
  {
    name: '5 signups from a device',
    signals: velocity('', 'deviceSignups', 'signup', 5),
    verdict: 'allow',
    code: 'velocity_device_signups',
  },
  {
    name: '6 signups from a device',
    signals: velocity('', 'deviceSignups', 'signup', 6),
    verdict: 'review',
    code: 'velocity_device_signups',
    detail: detail(6, 5, 86400, 'velocity_device_signups.over'),
  },
  {
    name: '10 signups from a device',
    signals: velocity('', 'deviceSignups', 'signup', 10),
    verdict: 'review',
    code: 'velocity_device_signups',
    detail: detail(10, 5, 86400, 'velocity_device_signups.over'),
  },
  {
    name: '11 signups from a device',
    signals: velocity('', 'deviceSignups', 'signup', 11),
    verdict: 'block',
    code: 'velocity_device_signups',
    detail: detail(11, 10, 86400, 'velocity_device_signups.block_over'),
  },
  // velocity_domain_signups: review above 20 in 1 h.
  {
    name: '20 signups from a domain',
    signals: velocity('', 'domainSignups', 'signup', 20),
    verdict: 'allow',
    code: 'velocity_domain_signups',
  },
  {
    name: '21 signups from a domain',
    signals: velocity('', 'domainSignups', 'signup', 21),
    verdict: 'review',
    code: 'velocity_domain_signups',
    detail: detail(21, 20, 3600, 'velocity_domain_signups.over'),
  },
  // velocity_card_attempts: block above 5 in 1 h.
  {
    name: '5 attempts with a card',
    signals: velocity('', 'cardAttempts', 'checkout_attempt', 5),
    verdict: 'allow',
    code: 'velocity_card_attempts',
  },
  {
    name: '6 attempts with a card',
    signals: velocity('', 'cardAttempts', 'checkout_attempt', 6),
    verdict: 'block',
    code: 'velocity_card_attempts',
    detail: detail(6, 5, 3600, 'velocity_card_attempts.over'),
  },
  // velocity_ip_card_attempts: block above 3 distinct cards from one ip in 1 h.
  {
    name: '3 cards from an ip',
    signals: velocity('', 'ipDistinctCards', 'checkout_attempt', 3),
    verdict: 'allow',
    code: 'velocity_ip_card_attempts',
  },
  {
    name: '4 cards from an ip',
    signals: velocity('', 'ipDistinctCards', 'checkout_attempt', 4),
    verdict: 'block',
    code: 'velocity_ip_card_attempts',
    detail: detail(4, 3, 3600, 'velocity_ip_card_attempts.over'),
  },
  // card_probe_pattern: block at 5 or more small attempts in 10 min, on the card or the ip.
  {
    name: '4 small attempts on a card',
    signals: { eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 4, ipSmallAttempts: 4 } },
    verdict: 'allow',
    code: 'card_probe_pattern',
  },
  {
    name: '5 small attempts on a card',
    signals: { eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 5 } },
    verdict: 'block',
    code: 'card_probe_pattern',
    detail: { attempts_10m: 5, count: 5, threshold: 5, window_seconds: 600, max_amount: 100, rule: 'card_probe_pattern.at_least' },
  },
  {
    name: '6 small attempts from an ip, 2 on the card',
    signals: { eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 2, ipSmallAttempts: 6 } },
    verdict: 'block',
    code: 'card_probe_pattern',
    detail: { attempts_10m: 6, count: 6, threshold: 5, window_seconds: 600, max_amount: 100, rule: 'card_probe_pattern.at_least' },
  },
  // ato_account_device_burst: block (hold) above 3 devices in 1 h: the 3rd device is fine, the 4th is not.
  {
    name: 'a 3rd device on an account in an hour',
    signals: velocity('', 'accountDistinctDevices', 'login', 3),
    verdict: 'allow',
    code: 'ato_account_device_burst',
  },
  {
    name: 'a 4th device on an account in an hour',
    signals: velocity('', 'accountDistinctDevices', 'login', 4),
    verdict: 'block',
    code: 'ato_account_device_burst',
    detail: { devices: 4, ...detail(4, 3, 3600, 'ato_account_device_burst.over') },
  },
  // velocity_distinct_cards / velocity_card_countries: review above 3 cards / 2 countries in the cluster in 24 h.
  {
    name: '3 cards in the cluster',
    signals: { eventType: 'checkout_attempt', graph: graph({ distinctCards24h: 3 }) },
    verdict: 'allow',
    code: 'velocity_distinct_cards',
  },
  {
    name: '4 cards in the cluster',
    signals: { eventType: 'checkout_attempt', graph: graph({ distinctCards24h: 4 }) },
    verdict: 'review',
    code: 'velocity_distinct_cards',
    detail: detail(4, 3, 86400, 'velocity_distinct_cards.over'),
  },
  {
    name: '2 card countries in the cluster',
    signals: { eventType: 'checkout_attempt', graph: graph({ distinctCardCountries24h: 2 }) },
    verdict: 'allow',
    code: 'velocity_card_countries',
  },
  {
    name: '3 card countries in the cluster',
    signals: { eventType: 'checkout_attempt', graph: graph({ distinctCardCountries24h: 3 }) },
    verdict: 'review',
    code: 'velocity_card_countries',
    detail: detail(3, 2, 86400, 'velocity_card_countries.over'),
  },
  // velocity_cluster_trials: block a trial_start when the cluster started one within 90 days.
  {
    name: 'a cluster trial 89 days ago',
    signals: { eventType: 'trial_start', graph: graph({ daysSinceLastTrialStart: 89 }) },
    verdict: 'block',
    code: 'velocity_cluster_trials',
    detail: {
      days_since_last_trial: 89,
      count: 89,
      threshold: 90,
      window_seconds: 7_776_000,
      rule: 'velocity_cluster_trials.window_seconds',
    },
  },
  {
    name: 'a cluster trial today',
    signals: { eventType: 'trial_start', graph: graph({ daysSinceLastTrialStart: 0 }) },
    verdict: 'block',
    code: 'velocity_cluster_trials',
    detail: {
      days_since_last_trial: 0,
      count: 0,
      threshold: 90,
      window_seconds: 7_776_000,
      rule: 'velocity_cluster_trials.window_seconds',
    },
  },
  {
    name: 'a cluster trial exactly 90 days ago',
    signals: { eventType: 'trial_start', graph: graph({ daysSinceLastTrialStart: 90 }) },
    verdict: 'allow',
    code: 'velocity_cluster_trials',
  },
  {
    name: 'a cluster trial 91 days ago',
    signals: { eventType: 'trial_start', graph: graph({ daysSinceLastTrialStart: 91 }) },
    verdict: 'allow',
    code: 'velocity_cluster_trials',
  },
  // young_domain: review under 30 days.
  {
    name: 'a domain 29 days old',
    signals: { email: email({ domainAgeDays: 29 }) },
    verdict: 'review',
    code: 'young_domain',
    detail: { age_days: 29, count: 29, threshold: 30, rule: 'young_domain.under_days' },
  },
  { name: 'a domain 30 days old', signals: { email: email({ domainAgeDays: 30 }) }, verdict: 'allow', code: 'young_domain' },
  { name: 'a domain 31 days old', signals: { email: email({ domainAgeDays: 31 }) }, verdict: 'allow', code: 'young_domain' },
  { name: 'a domain of unknown age', signals: { email: email({}) }, verdict: 'allow', code: 'young_domain' },
  // identity_cluster: informational from 2 accounts; at 3 first seen within a day, review with risk
  // on the event (a disposable email here); without risk, a household up to 6, review from 7.
  { name: 'a cluster of 1 account', signals: { graph: graph({ linkedAccounts: 1 }) }, verdict: 'allow', code: 'identity_cluster' },
  {
    name: 'a cluster of 2 accounts',
    signals: { graph: graph({ linkedAccounts: 2 }) },
    verdict: 'allow',
    code: 'identity_cluster',
    detail: { linked_accounts: 2, count: 2, threshold: 3, window_seconds: 86_400 },
  },
  {
    name: 'a cluster of 3 accounts, no risk on the event',
    signals: { graph: graph({ linkedAccounts: 3 }) },
    verdict: 'allow',
    code: 'identity_cluster',
    detail: { linked_accounts: 3, count: 3, threshold: 3, window_seconds: 86_400, group: 'household' },
  },
  {
    name: 'a cluster of 3 accounts, a disposable email',
    signals: { email: email({ disposable: true }), graph: graph({ linkedAccounts: 3 }) },
    verdict: 'review',
    code: 'identity_cluster',
    detail: {
      linked_accounts: 3,
      count: 3,
      threshold: 3,
      window_seconds: 86_400,
      evidence: 'disposable_email',
      rule: 'identity_cluster.min_accounts',
    },
  },
  {
    name: 'a cluster of 6 accounts, no risk',
    signals: { graph: graph({ linkedAccounts: 6 }) },
    verdict: 'allow',
    code: 'identity_cluster',
    detail: { linked_accounts: 6, count: 6, threshold: 3, window_seconds: 86_400, group: 'household' },
  },
  {
    name: 'a cluster of 7 accounts, no risk',
    signals: { graph: graph({ linkedAccounts: 7 }) },
    verdict: 'review',
    code: 'identity_cluster',
    detail: { linked_accounts: 7, count: 7, threshold: 6, window_seconds: 86_400, rule: 'identity_cluster.group_accounts' },
  },
  {
    name: 'a cluster of 9 accounts, 2 first seen within the day, a disposable email',
    signals: { email: email({ disposable: true }), graph: graph({ linkedAccounts: 9, recentAccounts: 2, viaKinds: ['phone', 'wifi'] }) },
    verdict: 'review',
    code: 'identity_cluster',
    detail: { linked_accounts: 9, count: 2, threshold: 3, window_seconds: 86_400, via_kinds: 'phone,wifi' },
  },
  {
    name: 'a cluster of 9 accounts, 3 first seen within the day, a disposable email',
    signals: { email: email({ disposable: true }), graph: graph({ linkedAccounts: 9, recentAccounts: 3 }) },
    verdict: 'review',
    code: 'identity_cluster',
    detail: {
      linked_accounts: 9,
      count: 3,
      threshold: 3,
      window_seconds: 86_400,
      evidence: 'disposable_email',
      rule: 'identity_cluster.min_accounts',
    },
  },
  // cluster_trusted: a conversion at least 30 days ago.
  { name: 'converted 29 days ago', signals: { graph: graph({ daysSinceConversion: 29 }) }, verdict: 'allow', code: 'cluster_trusted' },
  {
    name: 'converted exactly 30 days ago',
    signals: { graph: graph({ daysSinceConversion: 30 }) },
    verdict: 'allow',
    code: 'cluster_trusted',
    detail: { count: 30, threshold: 30, rule: 'cluster_trusted.min_days' },
  },
  {
    name: 'converted 31 days ago',
    signals: { graph: graph({ daysSinceConversion: 31 }) },
    verdict: 'allow',
    code: 'cluster_trusted',
    detail: { count: 31, threshold: 30, rule: 'cluster_trusted.min_days' },
  },
  {
    name: 'false_positive feedback',
    signals: { graph: graph({ falsePositive: true }) },
    verdict: 'allow',
    code: 'cluster_trusted',
    detail: { false_positive: true },
  },
  {
    name: 'converted long ago, but abuse confirmed',
    signals: { graph: graph({ daysSinceConversion: 400, confirmedAbuse: true }) },
    verdict: 'block',
    code: 'cluster_trusted',
  },
  {
    name: 'false_positive, but a chargeback',
    signals: { graph: graph({ falsePositive: true, chargebacks: 1 }) },
    verdict: 'allow',
    code: 'cluster_trusted',
  },
  // cluster_chargeback.
  {
    name: 'no chargeback',
    signals: { eventType: 'checkout_attempt', graph: graph({ chargebacks: 0 }) },
    verdict: 'allow',
    code: 'cluster_chargeback',
  },
  {
    name: '2 chargebacks',
    signals: { eventType: 'checkout_attempt', graph: graph({ chargebacks: 2 }) },
    verdict: 'review',
    code: 'cluster_chargeback',
    detail: { chargebacks: 2 },
  },
];

describe('engine: every threshold rule at its boundaries', () => {
  for (const row of ROWS) {
    it(`${row.name}: ${row.verdict}`, () => {
      const d = run(row.signals, row.policy);
      expect(d.verdict).to.equal(row.verdict);
      const reason = d.reasons.find((r) => r.code === row.code);
      if (row.detail === undefined) expect(reason, `${row.code} fired`).to.equal(undefined);
      else expect(reason).to.deep.equal(row.detail === 'absent' ? { code: row.code } : { code: row.code, detail: row.detail });
    });
  }
});

describe('engine: thresholds come from the policy', () => {
  it('moves every threshold with the policy', () => {
    expect(
      run({ velocity: { ipSignups: 3 } }, withRule('velocity_ip_signups', { over: 2, blockOver: 4 })).reasons[0]?.detail,
    ).to.deep.equal({ count: 3, threshold: 2, window_seconds: 3600, rule: 'velocity_ip_signups.over' });
    expect(run({ velocity: { ipSignups: 5 } }, withRule('velocity_ip_signups', { over: 2, blockOver: 4 })).verdict).to.equal('block');
    expect(run({ email: email({ domainAgeDays: 50 }) }, withRule('young_domain', { underDays: 60 })).verdict).to.equal('review');
    expect(
      run({ graph: graph({ linkedAccounts: 2 }) }, withRule('identity_cluster', { minAccounts: 2, groupAccounts: undefined })).verdict,
    ).to.equal('review');
    expect(
      run(
        { eventType: 'trial_start', graph: graph({ daysSinceLastTrialStart: 10 }) },
        withRule('velocity_cluster_trials', { windowSeconds: 10 * 86400 }),
      ).verdict,
    ).to.equal('allow');
    expect(
      run(
        { eventType: 'trial_start', graph: graph({ daysSinceLastTrialStart: 9 }) },
        withRule('velocity_cluster_trials', { windowSeconds: 10 * 86400 }),
      ).verdict,
    ).to.equal('block');
    expect(
      run({ eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 2 } }, withRule('card_probe_pattern', { atLeast: 2 })).verdict,
    ).to.equal('block');
    expect(
      run({ graph: graph({ daysSinceConversion: 5 }), velocity: { ipSignups: 6 } }, withRule('cluster_trusted', { minDays: 5 })).verdict,
    ).to.equal('allow');
    expect(
      run(
        { eventType: 'login', velocity: { accountDistinctDevices: 2 } },
        withRule('ato_account_device_burst', { over: 1, windowSeconds: 60 }),
      ).reasons[0]?.detail,
    ).to.deep.include({ threshold: 1, window_seconds: 60 });
    expect(
      run({ eventType: 'checkout_attempt', graph: graph({ distinctCards24h: 2 }) }, withRule('velocity_distinct_cards', { over: 1 }))
        .verdict,
    ).to.equal('review');
  });

  it('a threshold rule whose threshold is missing never fires', () => {
    const cases: [string, Partial<Signals>][] = [
      ['velocity_ip_signups', { velocity: { ipSignups: 999 } }],
      ['young_domain', { email: email({ domainAgeDays: 0 }) }],
      ['card_probe_pattern', { eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 999 } }],
      ['velocity_cluster_trials', { eventType: 'trial_start', graph: graph({ daysSinceLastTrialStart: 0 }) }],
      ['velocity_distinct_cards', { eventType: 'checkout_attempt', graph: graph({ distinctCards24h: 999 }) }],
      ['ato_account_device_burst', { eventType: 'login', velocity: { accountDistinctDevices: 999 } }],
      ['cluster_trusted', { graph: graph({ daysSinceConversion: 999 }) }],
    ];
    for (const [code, s] of cases) {
      const rule = { ...withRule(code, {}).rules[code]! };
      for (const key of ['over', 'blockOver', 'atLeast', 'underDays', 'windowSeconds', 'minDays'] as const) delete rule[key];
      const policy = { ...withRule(code, {}), rules: { ...withRule(code, {}).rules, [code]: rule } };
      expect(
        run(s, policy).reasons.map((r) => r.code),
        code,
      ).to.not.include(code);
    }
    const noMin = withRule('identity_cluster', {});
    delete noMin.rules.identity_cluster!.minAccounts;
    expect(run({ graph: graph({ linkedAccounts: 50 }) }, noMin).verdict).to.equal('allow');
  });

  it('a velocity rule without a window reports window_seconds 0 rather than a made-up one', () => {
    const policy = withRule('velocity_ip_signups', { windowSeconds: undefined });
    expect(run({ velocity: { ipSignups: 6 } }, policy).reasons[0]?.detail).to.deep.include({ window_seconds: 0 });
    const burst = withRule('ato_account_device_burst', { windowSeconds: undefined });
    expect(run({ eventType: 'login', velocity: { accountDistinctDevices: 4 } }, burst).reasons[0]?.detail).to.deep.include({
      window_seconds: 0,
    });
    const cards = withRule('velocity_distinct_cards', { windowSeconds: undefined });
    expect(run({ eventType: 'checkout_attempt', graph: graph({ distinctCards24h: 4 }) }, cards).reasons[0]?.detail).to.deep.include({
      window_seconds: 0,
    });
    const probe = withRule('card_probe_pattern', { windowSeconds: undefined, maxAmount: undefined });
    expect(run({ eventType: 'checkout_attempt', velocity: { ipSmallAttempts: 5 } }, probe).reasons[0]?.detail).to.deep.include({
      window_seconds: 0,
      max_amount: 0,
    });
  });
});
