// Every precedence, suppression, trust and advice branch of evaluate(), at the engine level.
import { expect } from 'chai';
import { evaluate } from '../../src/engine/evaluate.js';
import { NEVER_SUPPRESSED } from '../../src/engine/never-suppressed.js';
import { defaultPolicy } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { Rule } from '../../src/engine/rule.js';
import type { Signals } from '../../src/engine/types.js';
import { codesOf, email, FIRES, graph, ip, run, signals, withRule } from './engine-builders.js';

const blockList = { list: 'block' as const, kind: 'ip', value: 'x' };
const allowList = { list: 'allow' as const, kind: 'email', value: 'y' };
const trusted = (g = {}) => graph({ daysSinceConversion: 45, ...g });

describe('engine: list precedence', () => {
  it('blocklisted beats allowlisted and every rule, by default', () => {
    const d = run({ lists: [allowList, blockList], velocity: { ipSignups: 6 } });
    expect(d.verdict).to.equal('block');
    expect(d.reasons.map((r) => r.code).sort()).to.deep.equal(['allowlisted', 'blocklisted', 'velocity_ip_signups']);
  });

  it('allowlisted beats every block rule, confirmed abuse included', () => {
    expect(run({ lists: [allowList], velocity: { deviceSignups: 11 } }).verdict).to.equal('allow');
    expect(run({ lists: [allowList], graph: graph({ confirmedAbuse: true }) }).verdict).to.equal('allow');
    expect(run({ eventType: 'checkout_attempt', lists: [allowList], ip: ip({ torExit: true }) }).verdict).to.equal('allow');
  });

  it('a policy that puts the allow list first lets it win over the block list', () => {
    const allowFirst = { ...defaultPolicy, listPrecedence: ['allow', 'block'] as const };
    expect(run({ lists: [blockList, allowList] }, allowFirst).verdict).to.equal('allow');
    expect(run({ lists: [blockList] }, allowFirst).verdict).to.equal('block');
    expect(run({ lists: [allowList], velocity: { deviceSignups: 11 } }, allowFirst).verdict).to.equal('allow');
  });

  it('gives the list kind that matched in the detail', () => {
    expect(run({ lists: [blockList] }).reasons).to.deep.equal([{ code: 'blocklisted', detail: { kind: 'ip' } }]);
    expect(run({ lists: [allowList] }).reasons).to.deep.equal([{ code: 'allowlisted', detail: { kind: 'email' } }]);
  });

  it('otherwise the most severe effect wins: block over review over allow', () => {
    expect(run({ ip: ip({ proxy: true }), velocity: { deviceSignups: 11 } }).verdict).to.equal('block');
    expect(run({ ip: ip({ proxy: true }), missing: [{ source: 'dns', reason: 'timeout' }] }).verdict).to.equal('review');
    expect(run({ eventType: 'login', ip: ip({ proxy: true }) }).verdict).to.equal('allow');
  });
});

describe('engine: suppression by false_positive feedback', () => {
  const suppressing = (codes: string[], extra: Partial<Signals>) => ({
    ...extra,
    graph: graph({ ...extra.graph, suppressedCodes: codes }),
  });

  it('drops a suppressed code and its effect', () => {
    const d = run(suppressing(['proxy_ip'], { ip: ip({ proxy: true }), email: email({ disposable: true }) }));
    expect(d.reasons.map((r) => r.code)).to.deep.equal(['disposable_email']);
    expect(run(suppressing(['velocity_device_signups'], { velocity: { deviceSignups: 11 } })).verdict).to.equal('allow');
  });

  it('keeps a code that is not suppressed', () => {
    expect(codesOf(suppressing(['tor_exit'], { ip: ip({ proxy: true }) }))).to.deep.equal(['proxy_ip']);
  });

  for (const code of [
    'blocklisted',
    'allowlisted',
    'cluster_confirmed_abuse',
    'cluster_trusted',
    'timeout_failopen',
    'partial_enrichment',
  ]) {
    it(`never suppresses ${code}`, () => {
      expect(NEVER_SUPPRESSED.has(code)).to.equal(true);
      const fires = FIRES[code]!;
      const d = run(suppressing([code], { ...fires, graph: graph({ ...fires.graph }) }));
      expect(d.reasons.map((r) => r.code)).to.include(code);
    });
  }

  it('holds exactly those six codes', () => {
    expect([...NEVER_SUPPRESSED].sort()).to.deep.equal([
      'allowlisted',
      'blocklisted',
      'cluster_confirmed_abuse',
      'cluster_trusted',
      'partial_enrichment',
      'timeout_failopen',
    ]);
  });

  it('still blocks on confirmed abuse whatever false_positive feedback suppressed', () => {
    const d = run(suppressing(['cluster_confirmed_abuse'], { graph: graph({ confirmedAbuse: true }) }));
    expect(d.verdict).to.equal('block');
  });
});

describe('engine: trust softens only velocity, ip and cluster-size reviews', () => {
  const softened: [string, Partial<Signals>][] = [
    ['velocity_ip_signups', { velocity: { ipSignups: 6 } }],
    ['velocity_domain_signups', { velocity: { domainSignups: 21 } }],
    ['velocity_distinct_cards', { eventType: 'checkout_attempt', graph: trusted({ distinctCards24h: 4 }) }],
    ['velocity_card_countries', { eventType: 'checkout_attempt', graph: trusted({ distinctCardCountries24h: 3 }) }],
    ['tor_exit', { ip: ip({ torExit: true }) }],
    ['proxy_ip', { ip: ip({ proxy: true }) }],
    ['datacenter_ip', { ip: ip({ datacenter: true }) }],
    ['identity_cluster', { graph: trusted({ linkedAccounts: 7 }) }],
    ['velocity_device_signups', { velocity: { deviceSignups: 6 } }],
  ];
  for (const [code, s] of softened) {
    it(`turns a review from ${code} into allow, keeping the reason`, () => {
      const d = run({ graph: trusted(), ...s });
      expect(d.verdict).to.equal('allow');
      expect(d.reasons.map((r) => r.code)).to.include.members([code, 'cluster_trusted']);
      expect(run({ ...s, graph: s.graph ? { ...s.graph, daysSinceConversion: undefined } : undefined }).verdict).to.equal('review');
    });
  }

  const kept: [string, Partial<Signals>][] = [
    ['disposable_email', { email: email({ disposable: true }) }],
    ['young_domain', { email: email({ domainAgeDays: 2 }) }],
    ['invalid_mx', { email: email({ mx: 'null_mx' }) }],
    ['prepaid_card', { eventType: 'checkout_attempt', payment: { funding: 'prepaid' } }],
    ['ato_new_device', { eventType: 'login', deviceId: 'd', graph: trusted({ accountHasHistory: true }) }],
    ['malformed_email', { eventType: 'login', email: email({ malformed: true }) }],
    ['cluster_chargeback', { eventType: 'checkout_attempt', graph: graph({ chargebacks: 1, falsePositive: true }) }],
  ];
  for (const [code, s] of kept) {
    it(`does not soften a review from ${code}`, () => {
      const d = run({ graph: trusted(), ...s });
      expect(d.verdict).to.equal('review');
      expect(d.reasons.map((r) => r.code)).to.include(code);
    });
  }

  it('does not soften when a rule it may not soften also asks for review', () => {
    expect(run({ graph: trusted(), velocity: { ipSignups: 6 }, email: email({ disposable: true }) }).verdict).to.equal('review');
  });

  it('never softens a block, even one from a rule it may soften', () => {
    expect(run({ graph: trusted(), velocity: { ipSignups: 25 } }).verdict).to.equal('block');
    expect(run({ graph: trusted(), velocity: { ipSignups: 6, deviceSignups: 11 } }).verdict).to.equal('block');
    expect(run({ eventType: 'checkout_attempt', graph: trusted(), ip: ip({ torExit: true }) }).verdict).to.equal('block');
  });

  it('does nothing without trust', () => {
    expect(run({ graph: graph(), velocity: { ipSignups: 6 } }).verdict).to.equal('review');
  });

  it('is itself off when the policy turns cluster_trusted off', () => {
    expect(run({ graph: trusted(), velocity: { ipSignups: 6 } }, withRule('cluster_trusted', { enabled: false })).verdict).to.equal(
      'review',
    );
  });
});

describe('engine: recommended action goes with the verdict it advises on', () => {
  const newDevice = { eventType: 'login' as const, deviceId: 'd', graph: graph({ accountHasHistory: true }) };

  it('challenge with the review of a new device', () => {
    expect(run(newDevice)).to.deep.include({ verdict: 'review', recommendedAction: 'challenge' });
  });

  it('no challenge for a device already seen, or an account without history, or no device', () => {
    expect(run({ ...newDevice, graph: graph({ accountHasHistory: true, deviceSeenForAccount: true }) })).to.not.have.property(
      'recommendedAction',
    );
    expect(run({ ...newDevice, graph: graph({ accountHasHistory: false }) }).verdict).to.equal('allow');
    expect(run({ ...newDevice, deviceId: undefined }).verdict).to.equal('allow');
  });

  it('hold with the block of a device burst, and hold wins over challenge', () => {
    expect(run({ eventType: 'login', velocity: { accountDistinctDevices: 4 } })).to.deep.include({
      verdict: 'block',
      recommendedAction: 'hold',
    });
    expect(run({ ...newDevice, velocity: { accountDistinctDevices: 4 } })).to.deep.include({ verdict: 'block', recommendedAction: 'hold' });
  });

  it("advice from one finding among several with the verdict's effect", () => {
    // tor_exit reviews a login without advice, ato_new_device reviews it with a challenge.
    expect(run({ ...newDevice, ip: ip({ torExit: true }) })).to.deep.include({ verdict: 'review', recommendedAction: 'challenge' });
  });

  it('no challenge when the verdict is a block from another rule', () => {
    const d = run({ ...newDevice, lists: [blockList] });
    expect(d.verdict).to.equal('block');
    expect(d).to.not.have.property('recommendedAction');
  });

  it('no advice on an allow, even a listed one', () => {
    expect(run({ ...newDevice, lists: [allowList] })).to.not.have.property('recommendedAction');
    expect(run({})).to.not.have.property('recommendedAction');
  });

  it('a hold that a suppression removed is not advised', () => {
    const d = run({
      eventType: 'login',
      velocity: { accountDistinctDevices: 4 },
      graph: graph({ suppressedCodes: ['ato_account_device_burst'] }),
    });
    expect(d).to.deep.equal({ verdict: 'allow', reasons: [], policyVersion: defaultPolicy.version, engineVersion: d.engineVersion });
  });
});

describe('engine: which rules run', () => {
  it('a rule that is off does not run', () => {
    expect(codesOf({ ip: ip({ proxy: true }) }, withRule('proxy_ip', { enabled: false }))).to.deep.equal([]);
    expect(codesOf({ ip: ip({ proxy: true }) }, withRule('proxy_ip', { enabled: true }))).to.deep.equal(['proxy_ip']);
  });

  it('a rule with no effect for the event type, or no entry in the policy, does not run', () => {
    expect(codesOf({ eventType: 'login', ip: ip({ datacenter: true }) })).to.deep.equal([]);
    const { proxy_ip: _dropped, ...rest } = defaultPolicy.rules;
    expect(codesOf({ ip: ip({ proxy: true }) }, { ...defaultPolicy, rules: rest })).to.deep.equal([]);
  });

  it('a rule may give a harsher effect than its policy entry (the block step) or a milder one (info)', () => {
    expect(run({ velocity: { ipSignups: 21 } }).verdict).to.equal('block');
    expect(run({ graph: graph({ linkedAccounts: 2 }) }).verdict).to.equal('allow');
  });
});

describe('engine: the decision', () => {
  it('names the policy and the engine that judged', () => {
    const d = run({});
    expect(d).to.deep.equal({ verdict: 'allow', reasons: [], policyVersion: '2026-11-26.1', engineVersion: d.engineVersion });
    expect(d.engineVersion).to.match(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    expect(run({}, { ...defaultPolicy, version: '2030-01-01.7' }).policyVersion).to.equal('2030-01-01.7');
  });

  it('fails open with no reasons and no engine version when a rule throws, naming the fault', () => {
    const boom: Rule = {
      code: 'proxy_ip',
      evaluate: () => {
        throw new Error('bug');
      },
    };
    const d = evaluate(signals({ ip: ip({ proxy: true }), velocity: { deviceSignups: 11 } }), [...defaultRules, boom], defaultPolicy);
    expect(d).to.deep.equal({ verdict: 'allow', reasons: [], policyVersion: defaultPolicy.version, fault: 'bug' });
    const thrown: Rule = {
      code: 'proxy_ip',
      evaluate: () => {
        throw 'plain';
      },
    };
    expect(evaluate(signals({ ip: ip({ proxy: true }) }), [thrown], defaultPolicy).fault).to.equal('plain');
  });

  it('names the sources that were missing, once each, sorted', () => {
    const d = run({
      missing: [
        { source: 'velocity', reason: 'unavailable' },
        { source: 'dns', reason: 'timeout' },
        { source: 'graph', reason: 'unavailable' },
        { source: 'graph', reason: 'unavailable' },
        { source: 'rdap', reason: 'timeout' },
      ],
    });
    expect(d.reasons).to.deep.equal([
      { code: 'timeout_failopen', detail: { sources: 'dns,rdap' } },
      { code: 'partial_enrichment', detail: { sources: 'graph,velocity' } },
    ]);
  });

  it('carries the details of the other rules', () => {
    expect(run({ email: email({ disposable: true, domain: 'mail.trash.example' }) }).reasons).to.deep.equal([
      { code: 'disposable_email', detail: { domain: 'mail.trash.example' } },
    ]);
    expect(run({ email: email({ disposable: true }) }).reasons).to.deep.equal([{ code: 'disposable_email', detail: { domain: '' } }]);
    expect(run({ email: email({ disposable: true, malformed: true }) }).reasons).to.deep.equal([{ code: 'malformed_email' }]);
    expect(run({ email: email({ mx: 'null_mx' }) }).reasons).to.deep.equal([{ code: 'invalid_mx', detail: { mx: 'null_mx' } }]);
    expect(run({ email: email({ mx: 'ok' }) }).reasons).to.deep.equal([]);
    expect(run({ eventType: 'checkout_attempt', payment: { funding: 'debit' } }).reasons).to.deep.equal([]);
    expect(run({ eventType: 'checkout_attempt', payment: { funding: 'prepaid' } }).reasons).to.deep.equal([{ code: 'prepaid_card' }]);
    expect(run({ graph: graph({ confirmedAbuse: true }) }).reasons).to.deep.equal([{ code: 'cluster_confirmed_abuse' }]);
    expect(run({ ip: ip({ torExit: true, proxy: true, datacenter: true }) }).reasons).to.deep.equal([
      { code: 'tor_exit' },
      { code: 'proxy_ip' },
      { code: 'datacenter_ip' },
    ]);
  });
});
