// The default policy as a table (the README's reason codes): for every rule and every event type,
// whether the rule runs and the verdict it gives on its own. Engine level: no stores.
import { expect } from 'chai';
import { defaultPolicy } from '../../src/engine/policy.js';
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
