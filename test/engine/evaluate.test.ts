// The engine as a table: Signals in, Decision out. Pure: no stores involved.
import { expect } from 'chai';
import { evaluate } from '../../src/engine/evaluate.js';
import { defaultPolicy } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { Signals } from '../../src/engine/types.js';

const base = (s: Partial<Signals>): Signals => ({ eventType: 'signup', missing: [], ...s });
const run = (s: Partial<Signals>) => evaluate(base(s), defaultRules, defaultPolicy);
const ip = (flags: Partial<{ torExit: boolean; proxy: boolean; datacenter: boolean }>) => ({
  address: '192.0.2.1',
  torExit: false,
  proxy: false,
  datacenter: false,
  ...flags,
});

describe('engine: evaluate', () => {
  const cases: [string, Partial<Signals>, string, string[]][] = [
    ['nothing fired', {}, 'allow', []],
    ['5 signups from an ip is under the threshold', { velocity: { ipSignups: 5 } }, 'allow', []],
    ['6 signups from an ip', { velocity: { ipSignups: 6 } }, 'review', ['velocity_ip_signups']],
    ['20 signups from an ip still reviews', { velocity: { ipSignups: 20 } }, 'review', ['velocity_ip_signups']],
    ['21 signups from an ip blocks', { velocity: { ipSignups: 21 } }, 'block', ['velocity_ip_signups']],
    ['5 signups from a device (a family plan on one tablet)', { velocity: { deviceSignups: 5 } }, 'allow', []],
    ['6 signups from a device', { velocity: { deviceSignups: 6 } }, 'review', ['velocity_device_signups']],
    ['11 signups from a device', { velocity: { deviceSignups: 11 } }, 'block', ['velocity_device_signups']],
    ['20 signups from a domain', { velocity: { domainSignups: 20 } }, 'allow', []],
    ['21 signups from a domain', { velocity: { domainSignups: 21 } }, 'review', ['velocity_domain_signups']],
    ['domain registered 30 days ago', { email: { malformed: false, disposable: false, freemail: false, domainAgeDays: 30 } }, 'allow', []],
    [
      'domain registered 29 days ago',
      { email: { malformed: false, disposable: false, freemail: false, domainAgeDays: 29 } },
      'review',
      ['young_domain'],
    ],
    ['block beats review', { ip: ip({ proxy: true }), velocity: { deviceSignups: 11 } }, 'block', ['proxy_ip', 'velocity_device_signups']],
    [
      'allowlisted beats a block rule',
      { lists: [{ list: 'allow', kind: 'ip', value: 'x' }], velocity: { deviceSignups: 11 } },
      'allow',
      ['allowlisted', 'velocity_device_signups'],
    ],
    [
      'blocklisted beats allowlisted',
      {
        lists: [
          { list: 'allow', kind: 'ip', value: 'x' },
          { list: 'block', kind: 'email', value: 'y' },
        ],
      },
      'block',
      ['allowlisted', 'blocklisted'],
    ],
    [
      'a missing source informs only',
      {
        missing: [
          { source: 'velocity', reason: 'unavailable' },
          { source: 'dns', reason: 'timeout' },
        ],
      },
      'allow',
      ['partial_enrichment', 'timeout_failopen'],
    ],
  ];
  for (const [name, signals, verdict, codes] of cases) {
    it(name, () => {
      const d = run(signals);
      expect(d.verdict).to.equal(verdict);
      expect(d.reasons.map((r) => r.code).sort()).to.deep.equal([...codes].sort());
      expect(d.policyVersion).to.equal(defaultPolicy.version);
    });
  }

  it('runs a rule only on the event types its policy names', () => {
    expect(run({ eventType: 'login', ip: ip({ datacenter: true }) }).reasons).to.deep.equal([]);
    expect(run({ eventType: 'login', velocity: { ipSignups: 50 } }).verdict).to.equal('allow');
    expect(run({ eventType: 'checkout_attempt', ip: ip({ torExit: true }) }).verdict).to.equal('block');
  });

  it('drops codes suppressed for the cluster, but never a list or confirmed abuse', () => {
    const graph = {
      clusterId: 'c',
      linkedAccounts: 1,
      confirmedAbuse: false,
      falsePositive: false,
      chargebacks: 0,
      suppressedCodes: ['proxy_ip', 'blocklisted'],
      distinctCards24h: 0,
      distinctCardCountries24h: 0,
      accountHasHistory: false,
      deviceSeenForAccount: false,
    };
    const d = run({ ip: ip({ proxy: true }), lists: [{ list: 'block', kind: 'ip', value: 'x' }], graph });
    expect(d.reasons.map((r) => r.code)).to.deep.equal(['blocklisted']);
    expect(d.verdict).to.equal('block');
  });

  it('fails open with no reasons when a rule throws', () => {
    const boom = {
      code: 'proxy_ip',
      evaluate: () => {
        throw new Error('bug');
      },
    };
    const d = evaluate(base({ ip: ip({ proxy: true }), velocity: { deviceSignups: 11 } }), [...defaultRules, boom], defaultPolicy);
    expect(d).to.deep.include({ verdict: 'allow', reasons: [] });
    expect(d.fault).to.equal('bug');
  });

  it('carries the detail of a finding into its reason', () => {
    const d = run({ eventType: 'checkout_attempt', velocity: { cardSmallAttempts: 7, ipSmallAttempts: 2 } });
    expect(d.reasons).to.deep.equal([
      {
        code: 'card_probe_pattern',
        detail: { attempts_10m: 7, count: 7, threshold: 5, window_seconds: 600, max_amount: 100, rule: 'card_probe_pattern.at_least' },
      },
    ]);
  });
});
