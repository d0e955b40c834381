// Builders for engine tests: signals that fire one rule each, and a runner against the default
// policy. Pure: no stores.
import { evaluate } from '../../src/engine/evaluate.js';
import { defaultPolicy, type Policy, type RulePolicy } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { EmailSignal, EventType, GraphSignal, IpSignal, Signals } from '../../src/engine/types.js';

export const EVENT_TYPES: EventType[] = ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'];

export const email = (e: Partial<EmailSignal> = {}): EmailSignal => ({ malformed: false, disposable: false, freemail: false, ...e });
export const ip = (flags: Partial<IpSignal> = {}): IpSignal => ({
  address: '192.0.2.1',
  torExit: false,
  proxy: false,
  datacenter: false,
  ...flags,
});
export const graph = (g: Partial<GraphSignal> = {}): GraphSignal => ({
  clusterId: 'clu_1',
  linkedAccounts: 1,
  confirmedAbuse: false,
  falsePositive: false,
  chargebacks: 0,
  suppressedCodes: [],
  distinctCards24h: 0,
  distinctCardCountries24h: 0,
  accountHasHistory: false,
  deviceSeenForAccount: false,
  ...g,
});

export const signals = (s: Partial<Signals> = {}): Signals => ({ eventType: 'signup', missing: [], ...s });

export const run = (s: Partial<Signals>, policy: Policy = defaultPolicy) => evaluate(signals(s), defaultRules, policy);
export const codesOf = (s: Partial<Signals>, policy?: Policy) =>
  run(s, policy)
    .reasons.map((r) => r.code)
    .sort();

// A copy of the default policy with one rule's entry changed.
export function withRule(code: string, change: Partial<RulePolicy>, base: Policy = defaultPolicy): Policy {
  return { ...base, rules: { ...base.rules, [code]: { ...base.rules[code]!, ...change } } };
}

// Signals that make exactly one rule fire (on the event types the rule runs on).
export const FIRES: Record<string, Partial<Signals>> = {
  test_fixture: { testFixture: { outcome: 'review' } },
  blocklisted: { lists: [{ list: 'block', kind: 'ip', value: '192.0.2.1' }] },
  allowlisted: { lists: [{ list: 'allow', kind: 'email', value: 'a@b.example' }] },
  cluster_confirmed_abuse: { graph: graph({ confirmedAbuse: true }) },
  // A device that became a hub within a minute, 2 of its 30 accounts confirmed: a farm.
  hub_confirmed_abuse: {
    graph: graph({ hub: { kind: 'device', accounts: 30, confirmedAccounts: 2, formedSeconds: 60, markedAt: '2026-11-20T10:00:00.000Z' } }),
  },
  malformed_email: { email: email({ malformed: true }) },
  disposable_email: { email: email({ disposable: true, registrableDomain: 'mailinator.com' }) },
  invalid_mx: { email: email({ mx: 'no_mx' }) },
  young_domain: { email: email({ domainAgeDays: 3 }) },
  tor_exit: { ip: ip({ torExit: true }) },
  proxy_ip: { ip: ip({ proxy: true }) },
  datacenter_ip: { ip: ip({ datacenter: true }) },
  velocity_ip_signups: { velocity: { ipSignups: 6 } },
  velocity_device_signups: { velocity: { deviceSignups: 11 } },
  velocity_domain_signups: { velocity: { domainSignups: 21 } },
  velocity_card_attempts: { velocity: { cardAttempts: 6 } },
  velocity_ip_card_attempts: { velocity: { ipDistinctCards: 4 } },
  card_probe_pattern: { velocity: { cardSmallAttempts: 5 } },
  prepaid_card: { payment: { funding: 'prepaid' } },
  velocity_cluster_trials: { graph: graph({ daysSinceLastTrialStart: 10 }) },
  velocity_distinct_cards: { graph: graph({ distinctCards24h: 4 }) },
  velocity_card_countries: { graph: graph({ distinctCardCountries24h: 3 }) },
  cluster_chargeback: { graph: graph({ chargebacks: 1 }) },
  ato_new_device: { deviceId: 'dev_1', graph: graph({ accountHasHistory: true, deviceSeenForAccount: false }) },
  ato_account_device_burst: { velocity: { accountDistinctDevices: 4 } },
  identity_cluster: { graph: graph({ linkedAccounts: 7 }) },
  cluster_trusted: { graph: graph({ falsePositive: true }) },
  timeout_failopen: { missing: [{ source: 'dns', reason: 'timeout' }] },
  partial_enrichment: { missing: [{ source: 'velocity', reason: 'unavailable' }] },
};
