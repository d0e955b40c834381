// The counterfactual: the single change of input that would have given the next milder verdict,
// computed from the policy's thresholds. Engine level.
import { expect } from 'chai';
import { counterfactual } from '../../src/engine/counterfactual.js';
import { defaultPolicy, type Policy } from '../../src/engine/policy.js';
import { applyChange } from '../../src/engine/rule.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { Rule } from '../../src/engine/rule.js';
import type { Signals } from '../../src/engine/types.js';
import { email, FIRES, graph, ip, signals, withRule } from './engine-builders.js';

const cf = (s: Partial<Signals>, policy: Policy = defaultPolicy) => counterfactual(signals(s), defaultRules, policy);

describe('engine: counterfactual', () => {
  it('has none for an allow, or for a decision that failed open', () => {
    expect(cf({})).to.equal(undefined);
    const boom: Rule = { code: 'proxy_ip', evaluate: () => { throw new Error('bug'); } };
    expect(counterfactual(signals({ ip: ip({ proxy: true }) }), [boom], defaultPolicy)).to.equal(undefined);
  });

  it('steps a block from the harsher threshold down to review, at that threshold', () => {
    expect(cf({ velocity: { ipSignups: 22 } })).to.deep.equal({
      from: 'block', to: 'review',
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
    expect(one({ eventType: 'checkout_attempt', ip: ip({ torExit: true }) })).to.deep.equal([{ input: 'ip.torExit', from: true, to: false, rule: 'tor_exit' }]);
    expect(one({ email: email({ disposable: true }) })).to.deep.equal([{ input: 'email.disposable', from: true, to: false, rule: 'disposable_email' }]);
    expect(one({ email: email({ malformed: true }) })).to.deep.equal([{ input: 'email.malformed', from: true, to: false, rule: 'malformed_email' }]);
    expect(one({ email: email({ mx: 'no_mx' }) })).to.deep.equal([{ input: 'email.mx', from: 'no_mx', to: 'ok', rule: 'invalid_mx' }]);
    expect(one({ eventType: 'checkout_attempt', payment: { funding: 'prepaid' } })).to.deep.equal([{ input: 'payment.funding', from: 'prepaid', to: 'credit', rule: 'prepaid_card' }]);
    expect(one(FIRES.cluster_confirmed_abuse!)).to.deep.equal([{ input: 'graph.confirmedAbuse', from: true, to: false, rule: 'cluster_confirmed_abuse' }]);
    expect(one({ eventType: 'checkout_attempt', graph: graph({ chargebacks: 2 }) })).to.deep.equal([{ input: 'graph.chargebacks', from: 2, to: 0, rule: 'cluster_chargeback' }]);
    expect(one({ ...FIRES.ato_new_device!, eventType: 'login' })).to.deep.equal([{ input: 'graph.deviceSeenForAccount', from: false, to: true, rule: 'ato_new_device' }]);
    expect(one({ eventType: 'checkout_attempt', graph: graph({ distinctCardCountries24h: 3 }) })).to.deep.equal([{ input: 'graph.distinctCardCountries24h', from: 3, to: 2, rule: 'velocity_card_countries.over' }]);
  });

  it('removes the block-list hit, which may go further than the next milder verdict', () => {
    expect(cf({ lists: [{ list: 'block', kind: 'ip', value: 'x' }] })).to.deep.equal({
      from: 'block', to: 'review',
      changes: [{ input: 'lists.block', from: 'ip', to: null, rule: 'blocklisted', verdict: 'allow' }],
    });
  });

  it('lists no change when no single change is enough', () => {
    expect(cf({ ip: ip({ proxy: true }), email: email({ disposable: true }) })).to.deep.equal({ from: 'review', to: 'allow', changes: [] });
    expect(cf({ eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 6, ipSmallAttempts: 6 } })?.changes).to.deep.equal([]);
  });

  it('orders the exact next verdict first, then the smallest change', () => {
    // Block from both the device count and the ip step: only one change each, neither enough alone.
    expect(cf({ velocity: { ipSignups: 30, deviceSignups: 5 } })?.changes).to.deep.equal([]);
    // A review from the ip count (6) and a block from the device count (4): the device change gives review.
    const changes = cf({ velocity: { ipSignups: 6, deviceSignups: 4 } })?.changes;
    expect(changes).to.deep.equal([{ input: 'velocity.deviceSignups', from: 4, to: 3, rule: 'velocity_device_signups.over', verdict: 'review' }]);
    // Two ways to a milder verdict: the smaller numeric change comes first.
    const both = cf({ eventType: 'checkout_attempt', velocity: { cardAttempts: 9 }, lists: [{ list: 'block', kind: 'card_fingerprint', value: 'c' }] });
    expect(both?.changes).to.deep.equal([]);
    const two = cf({ eventType: 'checkout_attempt', graph: graph({ distinctCards24h: 5 }) }, withRule('velocity_card_countries', {}));
    expect(two?.changes.map((c) => c.to)).to.deep.equal([3]);
    const ordered = cf({ velocity: { ipSignups: 60 } }, withRule('velocity_ip_signups', { over: 50, blockOver: 55 }));
    expect(ordered?.changes.map((c) => [c.to, c.verdict])).to.deep.equal([[55, 'review'], [50, 'allow']]);
    const byDistance = cf({ velocity: { ipSignups: 60, domainSignups: 22 } }, withRule('velocity_ip_signups', { blockOver: undefined }));
    expect(byDistance?.changes).to.deep.equal([]);
  });

  it('prefers the smaller of two sufficient changes', () => {
    // Trust softens velocity reviews; with a trusted cluster, ato-free signup: one review from
    // the domain count and a block from the ip step. Lowering the ip count to 20 leaves review.
    const s = { velocity: { ipSignups: 23, domainSignups: 21 } };
    const changes = cf(s)?.changes;
    expect(changes?.map((c) => [c.input, c.to, c.verdict])).to.deep.equal([
      ['velocity.ipSignups', 20, 'review'],
      ['velocity.ipSignups', 5, 'review'],
    ]);
    const near = cf({ eventType: 'checkout_attempt', velocity: { cardAttempts: 6, ipDistinctCards: 9 } }, withRule('velocity_ip_card_attempts', { effects: { checkout_attempt: 'review' } }));
    expect(near?.changes.map((c) => [c.input, c.to])).to.deep.equal([['velocity.cardAttempts', 5]]);
    const far = cf({ eventType: 'checkout_attempt', velocity: { cardAttempts: 6 }, graph: graph({ distinctCards24h: 9, distinctCardCountries24h: 3 }) }, withRule('velocity_card_countries', { effects: { checkout_attempt: 'block' } }));
    expect(far?.changes).to.deep.equal([]);
  });

  it('sorts sufficient changes reaching the same verdict by how far they move the input', () => {
    const policy: Policy = { ...withRule('velocity_card_attempts', { effects: { checkout_attempt: 'review' } }), rules: { ...withRule('velocity_card_attempts', { effects: { checkout_attempt: 'review' } }).rules } };
    // Two alternative reviews on one signal group cannot both be removed by one change; use the
    // probe rule's two inputs instead: card count far over, ip count just at the threshold.
    const probe = cf({ eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 40 } }, policy);
    expect(probe?.changes).to.have.length(1);
    const sorted = cf({ eventType: 'checkout_attempt', graph: graph({ distinctCards24h: 30 }), velocity: { cardAttempts: 6 } },
      withRule('velocity_distinct_cards', { effects: { checkout_attempt: 'block' } }, withRule('velocity_card_attempts', { effects: { checkout_attempt: 'info' } })));
    expect(sorted?.changes.map((c) => c.input)).to.deep.equal(['graph.distinctCards24h']);
  });

  it('applies a change to a copy of the signals', () => {
    const s = signals({ velocity: { ipSignups: 9, deviceSignups: 1 }, lists: [{ list: 'block', kind: 'ip', value: 'x' }, { list: 'allow', kind: 'ip', value: 'y' }] });
    expect(applyChange(s, { input: 'velocity.ipSignups', from: 9, to: 5, rule: 'r' }).velocity).to.deep.equal({ ipSignups: 5, deviceSignups: 1 });
    expect(applyChange(s, { input: 'lists.block', from: 'ip', to: null, rule: 'blocklisted' }).lists).to.deep.equal([{ list: 'allow', kind: 'ip', value: 'y' }]);
    expect(applyChange(signals({}), { input: 'lists.block', from: 'ip', to: null, rule: 'blocklisted' }).lists).to.deep.equal([]);
    expect(applyChange(signals({}), { input: 'graph.chargebacks', from: 1, to: 0, rule: 'r' }).graph).to.deep.equal({ chargebacks: 0 });
    expect(s.velocity).to.deep.equal({ ipSignups: 9, deviceSignups: 1 });
  });
});
