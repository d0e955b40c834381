// identity_cluster as a table: how many accounts the cluster links, how many of them were first seen
// within the policy's window (2026-11-25.1: a day) or, without a window (2026-11-22.1), how many it
// ever linked, against minAccounts; its detail, its effect per event type, and the one change that
// undoes its review (the counterfactual); then 2026-11-26.1's evidence (a family, a team, a farm).
// Engine level. The boundaries of the default policy are in rule-boundaries.test.ts.
import { expect } from 'chai';
import { counterfactual } from '../../src/engine/counterfactual.js';
import { defaultPolicy, defaultPolicy20261122, defaultPolicy20261125, type Policy } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { EventType, Signals } from '../../src/engine/types.js';
import { graph, run, signals, withRule } from './engine-builders.js';

const STEP = 'identity_cluster.min_accounts';
const DAY = 86_400;

interface Row {
  name: string;
  signals: Partial<Signals>;
  policy?: Policy;
  verdict: 'allow' | 'review';
  // 'not fired': no reason at all.
  detail: Record<string, string | number> | 'not fired';
}

const ROWS: Row[] = [
  { name: 'no graph signal', signals: {}, verdict: 'allow', detail: 'not fired' },
  { name: 'an account alone', signals: { graph: graph({ linkedAccounts: 1, recentAccounts: 1 }) }, verdict: 'allow', detail: 'not fired' },
  {
    name: 'more first seen in the window than linked (the cluster split since)',
    signals: { graph: graph({ linkedAccounts: 2, recentAccounts: 5 }) },
    verdict: 'allow',
    detail: { linked_accounts: 2, count: 2, threshold: 3, window_seconds: DAY },
  },
  {
    name: 'a cluster of 12, 3 first seen within the day, through a device and a card',
    signals: { graph: graph({ linkedAccounts: 12, recentAccounts: 3, viaKinds: ['device', 'card'] }) },
    verdict: 'review',
    detail: { linked_accounts: 12, count: 3, threshold: 3, window_seconds: DAY, via_kinds: 'device,card', rule: STEP },
  },
  {
    name: 'a cluster of 3, none first seen within the day',
    signals: { graph: graph({ linkedAccounts: 3, recentAccounts: 0 }) },
    verdict: 'allow',
    detail: { linked_accounts: 3, count: 0, threshold: 3, window_seconds: DAY },
  },
  // 2026-11-22.1 has no window: the whole cluster counts, however slowly it grew.
  {
    name: 'under 2026-11-22.1, a cluster of 9, 2 first seen within the day',
    signals: { graph: graph({ linkedAccounts: 9, recentAccounts: 2, viaKinds: ['wifi'] }) },
    policy: defaultPolicy20261122,
    verdict: 'review',
    detail: { linked_accounts: 9, count: 9, threshold: 3, via_kinds: 'wifi', rule: STEP },
  },
  {
    name: 'under 2026-11-22.1, a cluster of 2',
    signals: { graph: graph({ linkedAccounts: 2 }) },
    policy: defaultPolicy20261122,
    verdict: 'allow',
    detail: { linked_accounts: 2, count: 2, threshold: 3 },
  },
  {
    name: 'under 2026-11-22.1, a cluster of 3',
    signals: { graph: graph({ linkedAccounts: 3 }) },
    policy: defaultPolicy20261122,
    verdict: 'review',
    detail: { linked_accounts: 3, count: 3, threshold: 3, rule: STEP },
  },
  // The window and the minimum come from the policy.
  {
    name: 'a window of an hour and a minimum of 5, 5 first seen in it',
    signals: { graph: graph({ linkedAccounts: 7, recentAccounts: 5 }) },
    policy: withRule('identity_cluster', { windowSeconds: 3600, minAccounts: 5 }, defaultPolicy20261125),
    verdict: 'review',
    detail: { linked_accounts: 7, count: 5, threshold: 5, window_seconds: 3600, rule: STEP },
  },
  {
    name: 'a window of an hour and a minimum of 5, 4 first seen in it',
    signals: { graph: graph({ linkedAccounts: 7, recentAccounts: 4 }) },
    policy: withRule('identity_cluster', { windowSeconds: 3600, minAccounts: 5 }, defaultPolicy20261125),
    verdict: 'allow',
    detail: { linked_accounts: 7, count: 4, threshold: 5, window_seconds: 3600 },
  },
  // Without minAccounts there is no review step: informational at any size, compared with no finite threshold.
  {
    name: 'no minimum in the policy, a cluster of 50 first seen within the day',
    signals: { graph: graph({ linkedAccounts: 50, recentAccounts: 50 }) },
    policy: withRule('identity_cluster', { minAccounts: undefined }, defaultPolicy20261125),
    verdict: 'allow',
    detail: { linked_accounts: 50, count: 50, threshold: Number.MAX_SAFE_INTEGER, window_seconds: DAY },
  },
];

describe('engine: identity_cluster, counted over its window (2026-11-25.1 unless named)', () => {
  for (const row of ROWS) {
    it(`${row.name}: ${row.verdict}`, () => {
      const d = run(row.signals, row.policy ?? defaultPolicy20261125);
      expect(d.verdict).to.equal(row.verdict);
      const reason = d.reasons.find((r) => r.code === 'identity_cluster');
      if (row.detail === 'not fired') expect(reason).to.equal(undefined);
      else expect(reason).to.deep.equal({ code: 'identity_cluster', detail: row.detail });
    });
  }

  const EFFECTS: [EventType, 'review' | 'allow'][] = [
    ['signup', 'review'],
    ['trial_start', 'review'],
    ['trial_convert', 'allow'],
    ['checkout_attempt', 'allow'],
    ['login', 'allow'],
  ];
  for (const policy of [defaultPolicy20261125, defaultPolicy20261122]) {
    for (const [eventType, verdict] of EFFECTS) {
      it(`under ${policy.version}, 3 accounts first seen within the day on ${eventType}: ${verdict}`, () => {
        const d = run({ eventType, graph: graph({ linkedAccounts: 3, recentAccounts: 3 }) }, policy);
        expect(d.verdict).to.equal(verdict);
        expect(d.reasons.map((r) => r.code)).to.deep.equal(['identity_cluster']);
      });
    }
  }
});

describe('engine: the one change that undoes an identity_cluster review', () => {
  const cf = (s: Partial<Signals>, policy: Policy = defaultPolicy20261125) => counterfactual(signals(s), defaultRules, policy)?.changes;

  it('with a window, fewer accounts first seen in it: one under the minimum', () => {
    expect(cf({ graph: graph({ linkedAccounts: 9, recentAccounts: 4 }) })).to.deep.equal([
      { input: 'graph.recentAccounts', from: 4, to: 2, rule: STEP, verdict: 'allow' },
    ]);
    expect(
      cf(
        { graph: graph({ linkedAccounts: 9, recentAccounts: 6 }) },
        withRule('identity_cluster', { minAccounts: 5 }, defaultPolicy20261125),
      ),
    ).to.deep.equal([{ input: 'graph.recentAccounts', from: 6, to: 4, rule: STEP, verdict: 'allow' }]);
  });

  it('without a window, or with signals stored before windows, fewer linked accounts', () => {
    expect(cf({ graph: graph({ linkedAccounts: 5, recentAccounts: 4 }) }, defaultPolicy20261122)).to.deep.equal([
      { input: 'graph.linkedAccounts', from: 5, to: 2, rule: STEP, verdict: 'allow' },
    ]);
    expect(
      cf({ graph: graph({ linkedAccounts: 6 }) }, withRule('identity_cluster', { minAccounts: 4 }, defaultPolicy20261125)),
    ).to.deep.equal([{ input: 'graph.linkedAccounts', from: 6, to: 3, rule: STEP, verdict: 'allow' }]);
  });
});

// 2026-11-26.1: a burst is judged by its evidence as well as its count (groupAccounts 6).
describe('engine: identity_cluster under 2026-11-26.1, a farm told from a group by the evidence', () => {
  const GROUP = 'identity_cluster.group_accounts';
  const corporate = {
    malformed: false,
    disposable: false,
    freemail: false,
    domain: 'acme.example',
    mx: 'ok' as const,
    domainAgeDays: 4000,
  };
  const free = { ...corporate, freemail: true, domain: 'gmail.com' };
  const burst = (n: number, viaKinds: string[]) => graph({ linkedAccounts: n, recentAccounts: n, viaKinds });
  const TABLE: { name: string; s: Partial<Signals>; verdict: 'allow' | 'review'; detail: Record<string, string | number> }[] = [
    {
      name: 'a family plan: 5 in an evening on the family tablet and the home network, free-mail',
      s: { email: free, graph: burst(5, ['device', 'wifi', 'home_ip']) },
      verdict: 'allow',
      detail: { linked_accounts: 5, count: 5, threshold: 3, window_seconds: DAY, via_kinds: 'device,wifi,home_ip', group: 'household' },
    },
    {
      name: 'the same burst on a disposable email',
      s: { email: { ...free, disposable: true }, graph: burst(3, ['device']) },
      verdict: 'review',
      detail: {
        linked_accounts: 3,
        count: 3,
        threshold: 3,
        window_seconds: DAY,
        via_kinds: 'device',
        evidence: 'disposable_email',
        rule: STEP,
      },
    },
    ...(['torExit', 'proxy', 'datacenter'] as const).map((flag) => ({
      name: `3 in a day from a ${flag} address`,
      s: {
        email: free,
        ip: { address: '192.0.2.1', torExit: false, proxy: false, datacenter: false, [flag]: true },
        graph: burst(3, ['wifi']),
      },
      verdict: 'review' as const,
      detail: {
        linked_accounts: 3,
        count: 3,
        threshold: 3,
        window_seconds: DAY,
        via_kinds: 'wifi',
        evidence: { torExit: 'tor_exit', proxy: 'proxy_ip', datacenter: 'datacenter_ip' }[flag],
        rule: STEP,
      },
    })),
    {
      name: 'a team onboarding: 9 on the office network, a corporate domain colleagues signed up on this hour',
      s: { email: corporate, velocity: { domainSignups: 9 }, graph: burst(9, ['wifi']) },
      verdict: 'allow',
      detail: { linked_accounts: 9, count: 9, threshold: 3, window_seconds: DAY, via_kinds: 'wifi', group: 'team' },
    },
    {
      name: 'the same, the second on its domain this hour',
      s: { email: corporate, velocity: { domainSignups: 2 }, graph: burst(9, ['wifi']) },
      verdict: 'allow',
      detail: { linked_accounts: 9, count: 9, threshold: 3, window_seconds: DAY, via_kinds: 'wifi', group: 'team' },
    },
    {
      name: 'the same, the kinds linking it unknown (signals stored without them)',
      s: { email: corporate, velocity: { domainSignups: 9 }, graph: graph({ linkedAccounts: 9, recentAccounts: 9 }) },
      verdict: 'review',
      detail: { linked_accounts: 9, count: 9, threshold: 6, window_seconds: DAY, rule: GROUP },
    },
    {
      name: 'the same, linked through no kind at all',
      s: { email: corporate, velocity: { domainSignups: 9 }, graph: burst(9, []) },
      verdict: 'review',
      detail: { linked_accounts: 9, count: 9, threshold: 6, window_seconds: DAY, via_kinds: '', rule: GROUP },
    },
    {
      name: 'the same, the first on its domain this hour',
      s: { email: corporate, velocity: { domainSignups: 1 }, graph: burst(9, ['wifi']) },
      verdict: 'review',
      detail: { linked_accounts: 9, count: 9, threshold: 6, window_seconds: DAY, via_kinds: 'wifi', rule: GROUP },
    },
    {
      name: 'the same on free-mail',
      s: { email: free, velocity: { domainSignups: 9 }, graph: burst(9, ['wifi']) },
      verdict: 'review',
      detail: { linked_accounts: 9, count: 9, threshold: 6, window_seconds: DAY, via_kinds: 'wifi', rule: GROUP },
    },
    {
      name: 'a corporate domain of unknown age (no RDAP answer)',
      s: { email: { ...corporate, domainAgeDays: undefined }, velocity: { domainSignups: 9 }, graph: burst(9, ['wifi']) },
      verdict: 'review',
      detail: { linked_accounts: 9, count: 9, threshold: 6, window_seconds: DAY, via_kinds: 'wifi', rule: GROUP },
    },
    {
      name: 'a corporate domain registered 364 days ago',
      s: { email: { ...corporate, domainAgeDays: 364 }, velocity: { domainSignups: 9 }, graph: burst(9, ['wifi']) },
      verdict: 'review',
      detail: { linked_accounts: 9, count: 9, threshold: 6, window_seconds: DAY, via_kinds: 'wifi', rule: GROUP },
    },
    {
      name: 'a corporate domain registered 365 days ago',
      s: { email: { ...corporate, domainAgeDays: 365 }, velocity: { domainSignups: 9 }, graph: burst(9, ['wifi']) },
      verdict: 'allow',
      detail: { linked_accounts: 9, count: 9, threshold: 3, window_seconds: DAY, via_kinds: 'wifi', group: 'team' },
    },
    {
      name: 'a corporate domain without MX',
      s: { email: { ...corporate, mx: 'no_mx' }, velocity: { domainSignups: 9 }, graph: burst(9, ['wifi']) },
      verdict: 'review',
      detail: { linked_accounts: 9, count: 9, threshold: 6, window_seconds: DAY, via_kinds: 'wifi', rule: GROUP },
    },
    {
      name: 'a corporate domain, the burst held together by a device (a farm on company addresses)',
      s: { email: corporate, velocity: { domainSignups: 9 }, graph: burst(7, ['device', 'wifi']) },
      verdict: 'review',
      detail: { linked_accounts: 7, count: 7, threshold: 6, window_seconds: DAY, via_kinds: 'device,wifi', rule: GROUP },
    },
    {
      name: 'a farm on free-mail: 7 on one device in a day',
      s: { email: free, graph: burst(7, ['device']) },
      verdict: 'review',
      detail: { linked_accounts: 7, count: 7, threshold: 6, window_seconds: DAY, via_kinds: 'device', rule: GROUP },
    },
    {
      name: '3 in a day through one email (one mailbox, several accounts)',
      s: { email: free, graph: burst(3, ['email']) },
      verdict: 'review',
      detail: { linked_accounts: 3, count: 3, threshold: 3, window_seconds: DAY, via_kinds: 'email', evidence: 'shared_email', rule: STEP },
    },
    {
      name: '6 on one device in a day: a family at its largest',
      s: { email: free, graph: burst(6, ['device']) },
      verdict: 'allow',
      detail: { linked_accounts: 6, count: 6, threshold: 3, window_seconds: DAY, via_kinds: 'device', group: 'household' },
    },
    {
      name: '2 in a day on a disposable email: under the minimum, informational',
      s: { email: { ...free, disposable: true }, graph: burst(2, ['device']) },
      verdict: 'allow',
      detail: { linked_accounts: 2, count: 2, threshold: 3, window_seconds: DAY, via_kinds: 'device' },
    },
  ];
  for (const row of TABLE) {
    it(`${row.name}: ${row.verdict}`, () => {
      const d = run({ eventType: 'signup', ...row.s }, defaultPolicy);
      const reason = d.reasons.find((r) => r.code === 'identity_cluster');
      expect(reason).to.deep.equal({ code: 'identity_cluster', detail: row.detail });
      // The verdict of identity_cluster alone (a disposable email or a risky address reviews too).
      expect(reason!.detail!.rule === undefined ? 'allow' : 'review').to.equal(row.verdict);
    });
  }

  it('names the count that would have made the burst a household, and the one under the minimum', () => {
    const cf = (s: Partial<Signals>) => counterfactual(signals({ eventType: 'signup', ...s }), defaultRules, defaultPolicy)?.changes;
    expect(cf({ email: free, graph: burst(8, ['device']) })).to.deep.equal([
      { input: 'graph.recentAccounts', from: 8, to: 6, rule: GROUP, verdict: 'allow' },
      { input: 'graph.recentAccounts', from: 8, to: 2, rule: STEP, verdict: 'allow' },
    ]);
  });
});
