// The counterfactual: the single change of input that would have given the next milder verdict,
// computed from the policy's thresholds. Engine level.
import { expect } from 'chai';
import { counterfactual } from '../../src/engine/counterfactual.js';
import { defaultPolicy20261125, type Policy } from '../../src/engine/policy.js';
import { applyChange } from '../../src/engine/rule.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { Rule } from '../../src/engine/rule.js';
import type { Signals } from '../../src/engine/types.js';
import { email, FIRES, graph, ip, signals, withRule } from './engine-builders.js';

// The mechanism, on a fixed policy: 2026-11-25.1 (one step per velocity rule, identity_cluster by count).
const cf = (s: Partial<Signals>, policy: Policy = defaultPolicy20261125) => counterfactual(signals(s), defaultRules, policy);

describe('engine: counterfactual', () => {
  it('has none for an allow, or for a decision that failed open', () => {
    expect(cf({})).to.equal(undefined);
    const boom: Rule = {
      code: 'proxy_ip',
      evaluate: () => {
        throw new Error('bug');
      },
    };
    expect(counterfactual(signals({ ip: ip({ proxy: true }) }), [boom], defaultPolicy20261125)).to.equal(undefined);
  });

  it('steps a block from the harsher threshold down to review, at that threshold', () => {
    expect(cf({ velocity: { ipSignups: 22 } })).to.deep.equal({
      from: 'block',
      to: 'review',
      changes: [
        { input: 'velocity.ipSignups', from: 22, to: 20, rule: 'velocity_ip_signups.block_over', verdict: 'review' },
        { input: 'velocity.ipSignups', from: 22, to: 5, rule: 'velocity_ip_signups.over', verdict: 'allow' },
      ],
    });
  });

  it('gives the highest count that would not have fired', () => {
    expect(cf({ velocity: { ipSignups: 6 } })?.changes).to.deep.equal([
      { input: 'velocity.ipSignups', from: 6, to: 5, rule: 'velocity_ip_signups.over', verdict: 'allow' },
    ]);
    expect(cf({ eventType: 'login', velocity: { accountDistinctDevices: 7 } })?.changes).to.deep.equal([
      { input: 'velocity.accountDistinctDevices', from: 7, to: 3, rule: 'ato_account_device_burst.over', verdict: 'allow' },
    ]);
    expect(cf({ eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 9 } })?.changes).to.deep.equal([
      { input: 'velocity.cardSmallAttempts', from: 9, to: 4, rule: 'card_probe_pattern.at_least', verdict: 'allow' },
    ]);
    expect(cf({ email: email({ domainAgeDays: 4 }) })?.changes).to.deep.equal([
      { input: 'email.domainAgeDays', from: 4, to: 30, rule: 'young_domain.under_days', verdict: 'allow' },
    ]);
    expect(cf({ graph: graph({ linkedAccounts: 5 }) })?.changes).to.deep.equal([
      { input: 'graph.linkedAccounts', from: 5, to: 2, rule: 'identity_cluster.min_accounts', verdict: 'allow' },
    ]);
    expect(cf({ eventType: 'trial_start', graph: graph({ daysSinceLastTrialStart: 12 }) })?.changes).to.deep.equal([
      { input: 'graph.daysSinceLastTrialStart', from: 12, to: 90, rule: 'velocity_cluster_trials.window_seconds', verdict: 'allow' },
    ]);
    expect(cf({ eventType: 'checkout_attempt', graph: graph({ distinctCards24h: 6 }) })?.changes).to.deep.equal([
      { input: 'graph.distinctCards24h', from: 6, to: 3, rule: 'velocity_distinct_cards.over', verdict: 'allow' },
    ]);
  });

  it('follows the policy in force, not the default', () => {
    const policy = withRule('velocity_ip_signups', { over: 10, blockOver: 40 });
    expect(cf({ velocity: { ipSignups: 41 } }, policy)?.changes[0]).to.deep.include({ to: 40, verdict: 'review' });
  });

  it('names a flag to clear for the rules without a threshold', () => {
    const one = (s: Partial<Signals>) => cf(s)?.changes.map(({ input, from, to, rule }) => ({ input, from, to, rule }));
    expect(one({ ip: ip({ proxy: true }) })).to.deep.equal([{ input: 'ip.proxy', from: true, to: false, rule: 'proxy_ip' }]);
    expect(one({ ip: ip({ datacenter: true }) })).to.deep.equal([{ input: 'ip.datacenter', from: true, to: false, rule: 'datacenter_ip' }]);
    expect(one({ eventType: 'checkout_attempt', ip: ip({ torExit: true }) })).to.deep.equal([
      { input: 'ip.torExit', from: true, to: false, rule: 'tor_exit' },
    ]);
    expect(one({ email: email({ disposable: true }) })).to.deep.equal([
      { input: 'email.disposable', from: true, to: false, rule: 'disposable_email' },
    ]);
    expect(one({ email: email({ malformed: true }) })).to.deep.equal([
      { input: 'email.malformed', from: true, to: false, rule: 'malformed_email' },
    ]);
    expect(one({ email: email({ mx: 'no_mx' }) })).to.deep.equal([{ input: 'email.mx', from: 'no_mx', to: 'ok', rule: 'invalid_mx' }]);
    expect(one({ eventType: 'checkout_attempt', payment: { funding: 'prepaid' } })).to.deep.equal([
      { input: 'payment.funding', from: 'prepaid', to: 'credit', rule: 'prepaid_card' },
    ]);
    expect(one(FIRES.cluster_confirmed_abuse!)).to.deep.equal([
      { input: 'graph.confirmedAbuse', from: true, to: false, rule: 'cluster_confirmed_abuse' },
    ]);
    expect(one({ eventType: 'checkout_attempt', graph: graph({ chargebacks: 2 }) })).to.deep.equal([
      { input: 'graph.chargebacks', from: 2, to: 0, rule: 'cluster_chargeback' },
    ]);
    expect(one({ ...FIRES.ato_new_device!, eventType: 'login' })).to.deep.equal([
      { input: 'graph.deviceSeenForAccount', from: false, to: true, rule: 'ato_new_device' },
    ]);
    expect(one({ eventType: 'checkout_attempt', graph: graph({ distinctCardCountries24h: 3 }) })).to.deep.equal([
      { input: 'graph.distinctCardCountries24h', from: 3, to: 2, rule: 'velocity_card_countries.over' },
    ]);
  });

  it('removes the block-list hit, which may go further than the next milder verdict', () => {
    expect(cf({ lists: [{ list: 'block', kind: 'ip', value: 'x' }] })).to.deep.equal({
      from: 'block',
      to: 'review',
      changes: [{ input: 'lists.block', from: 'ip', to: null, rule: 'blocklisted', verdict: 'allow' }],
    });
  });

  it('lists no change when no single change is enough', () => {
    expect(cf({ ip: ip({ proxy: true }), email: email({ disposable: true }) })).to.deep.equal({ from: 'review', to: 'allow', changes: [] });
    expect(cf({ eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 6, ipSmallAttempts: 6 } })?.changes).to.deep.equal([]);
  });

  it("lists each rule's nearest step first", () => {
    const ordered = cf({ velocity: { ipSignups: 60 } }, withRule('velocity_ip_signups', { over: 50, blockOver: 55 }));
    expect(ordered?.changes.map((c) => [c.to, c.verdict])).to.deep.equal([
      [55, 'review'],
      [50, 'allow'],
    ]);
    // Both steps block: only going under the lower one is milder.
    const bothBlock = cf({ velocity: { ipSignups: 30 } }, withRule('velocity_ip_signups', { effects: { signup: 'block' } }));
    expect(bothBlock?.changes.map((c) => [c.to, c.verdict])).to.deep.equal([[5, 'allow']]);
    // Without a block step there is one step.
    const oneStep = cf({ velocity: { ipSignups: 60 } }, withRule('velocity_ip_signups', { blockOver: undefined }));
    expect(oneStep?.changes.map((c) => [c.to, c.rule])).to.deep.equal([[5, 'velocity_ip_signups.over']]);
  });

  it('offers a change only when it alone gives a milder verdict', () => {
    // A review from the ip count and a block from the device count: lowering the device count gives review.
    expect(cf({ velocity: { ipSignups: 6, deviceSignups: 4 } })?.changes).to.deep.equal([
      { input: 'velocity.deviceSignups', from: 4, to: 3, rule: 'velocity_device_signups.over', verdict: 'review' },
    ]);
    // Two blocks: no single change.
    expect(cf({ velocity: { ipSignups: 30, deviceSignups: 5 } })?.changes).to.deep.equal([]);
    expect(
      cf({ eventType: 'checkout_attempt', velocity: { cardAttempts: 9 }, lists: [{ list: 'block', kind: 'card_fingerprint', value: 'c' }] })
        ?.changes,
    ).to.deep.equal([]);
    // Exactly at the probe threshold on the card, under it on the ip.
    expect(cf({ eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 5, ipSmallAttempts: 4 } })?.changes).to.deep.equal([
      { input: 'velocity.cardSmallAttempts', from: 5, to: 4, rule: 'card_probe_pattern.at_least', verdict: 'allow' },
    ]);
    expect(cf({ eventType: 'checkout_attempt', velocity: { ipSmallAttempts: 7 } })?.changes).to.deep.equal([
      { input: 'velocity.ipSmallAttempts', from: 7, to: 4, rule: 'card_probe_pattern.at_least', verdict: 'allow' },
    ]);
  });

  it('names the block-list hit, not an allow-list hit before it', () => {
    const both = cf({
      lists: [
        { list: 'allow', kind: 'email', value: 'a' },
        { list: 'block', kind: 'device', value: 'd' },
      ],
    });
    expect(both?.changes).to.deep.equal([{ input: 'lists.block', from: 'device', to: null, rule: 'blocklisted', verdict: 'allow' }]);
  });

  it('does not offer a change under which a rule throws', () => {
    const fragile: Rule = {
      code: 'proxy_ip',
      evaluate: (s) => {
        if (!s.ip?.proxy) throw new Error('bug');
        return {};
      },
      relax: defaultRules.find((r) => r.code === 'proxy_ip')!.relax,
    };
    const rules = defaultRules.map((r) => (r.code === 'proxy_ip' ? fragile : r));
    expect(counterfactual(signals({ ip: ip({ proxy: true }) }), rules, defaultPolicy20261125)).to.deep.equal({
      from: 'review',
      to: 'allow',
      changes: [],
    });
  });

  it('ignores rules that fired without a way to relax them, and rules that did not fire', () => {
    // identity_cluster at 2 is informational; the review comes from the proxy alone.
    expect(
      cf({ ip: ip({ proxy: true }), graph: graph({ linkedAccounts: 2, daysSinceConversion: 1 }) })?.changes.map((c) => c.input),
    ).to.deep.equal(['ip.proxy']);
    const noRelax: Rule = { code: 'proxy_ip', evaluate: (s) => (s.ip?.proxy ? {} : undefined) };
    expect(counterfactual(signals({ ip: ip({ proxy: true }) }), [noRelax], defaultPolicy20261125)).to.deep.equal({
      from: 'review',
      to: 'allow',
      changes: [],
    });
  });

  it('applies a change to a copy of the signals', () => {
    const s = signals({
      velocity: { ipSignups: 9, deviceSignups: 1 },
      lists: [
        { list: 'block', kind: 'ip', value: 'x' },
        { list: 'allow', kind: 'ip', value: 'y' },
      ],
    });
    expect(applyChange(s, { input: 'velocity.ipSignups', from: 9, to: 5, rule: 'r' }).velocity).to.deep.equal({
      ipSignups: 5,
      deviceSignups: 1,
    });
    expect(applyChange(s, { input: 'lists.block', from: 'ip', to: null, rule: 'blocklisted' }).lists).to.deep.equal([
      { list: 'allow', kind: 'ip', value: 'y' },
    ]);
    expect(applyChange(signals({}), { input: 'lists.block', from: 'ip', to: null, rule: 'blocklisted' }).lists).to.deep.equal([]);
    expect(applyChange(signals({}), { input: 'graph.chargebacks', from: 1, to: 0, rule: 'r' }).graph).to.deep.equal({ chargebacks: 0 });
    expect(s.velocity).to.deep.equal({ ipSignups: 9, deviceSignups: 1 });
  });
});
