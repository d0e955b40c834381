// cluster_confirmed_abuse as a table: its evidence (`via`, `marked_at`), the verified-only step-down
// (a path through caller-supplied identity values alone reviews instead of blocking), and its
// effect per event type, under the default policy and under the one it replaced. Engine level.
import { expect } from 'chai';
import { counterfactual } from '../../src/engine/counterfactual.js';
import { defaultPolicy, defaultPolicy20261122, defaultPolicy20261125, type Policy } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { EventType, Signals } from '../../src/engine/types.js';
import { email, EVENT_TYPES, graph, ip, run, signals, withRule } from './engine-builders.js';

const MARKED_AT = '2026-11-20T08:15:00.000Z';
// A cluster of 12 accounts grown slowly (larger than a household: the group step-down of 2026-11-26.1
// stays out; no burst for identity_cluster).
const marked = (via: string[], g: Parameters<typeof graph>[0] = {}) =>
  graph({ confirmedAbuse: true, linkedAccounts: 12, recentAccounts: 0, abuseEvidence: { via, markedAt: MARKED_AT }, ...g });
const GROUP = 'cluster_confirmed_abuse.group';
const VERIFIED_ONLY = 'cluster_confirmed_abuse.verified_only';

interface Row {
  name: string;
  signals: Partial<Signals>;
  policy?: Policy;
  verdict: 'allow' | 'review' | 'block';
  // undefined: no detail at all; 'not fired': no reason at all.
  detail?: Record<string, string> | 'not fired';
}

const ROWS: Row[] = [
  // The default policy (verified_only: 1): the account itself, or a path through an identifier Doorman derives, blocks.
  {
    name: 'the account is the marked subject',
    signals: { graph: marked([]) },
    verdict: 'block',
    detail: { via: '', marked_at: MARKED_AT },
  },
  { name: 'a path through a card', signals: { graph: marked(['card']) }, verdict: 'block', detail: { via: 'card', marked_at: MARKED_AT } },
  {
    name: 'a path through an email',
    signals: { graph: marked(['email']) },
    verdict: 'block',
    detail: { via: 'email', marked_at: MARKED_AT },
  },
  {
    name: 'a path through a device',
    signals: { graph: marked(['device']) },
    verdict: 'block',
    detail: { via: 'device', marked_at: MARKED_AT },
  },
  {
    name: 'a path through a phone, then a device, then a wifi',
    signals: { graph: marked(['phone', 'device', 'wifi']) },
    verdict: 'block',
    detail: { via: 'phone,device,wifi', marked_at: MARKED_AT },
  },
  {
    name: 'a path through a device, then a phone, then a card',
    signals: { graph: marked(['device', 'phone', 'card']) },
    verdict: 'block',
    detail: { via: 'device,phone,card', marked_at: MARKED_AT },
  },
  // A path through caller-supplied identity values alone steps the block down to review.
  {
    name: 'a path through a wifi alone',
    signals: { graph: marked(['wifi']) },
    verdict: 'review',
    detail: { via: 'wifi', marked_at: MARKED_AT, rule: VERIFIED_ONLY },
  },
  {
    name: 'a path through a phone, then a home address',
    signals: { graph: marked(['phone', 'home_address']) },
    verdict: 'review',
    detail: { via: 'phone,home_address', marked_at: MARKED_AT, rule: VERIFIED_ONLY },
  },
  // Without a path in the graph yet (the link is pending): the kinds shared, no marked_at, and no step-down.
  {
    name: 'a pending link through a wifi',
    signals: { graph: graph({ confirmedAbuse: true, viaKinds: ['wifi'] }) },
    verdict: 'block',
    detail: { via: 'wifi' },
  },
  {
    name: 'a pending link through a phone and a card',
    signals: { graph: graph({ confirmedAbuse: true, viaKinds: ['phone', 'card'] }) },
    verdict: 'block',
    detail: { via: 'phone,card' },
  },
  { name: 'signals stored before evidence existed', signals: { graph: graph({ confirmedAbuse: true }) }, verdict: 'block' },
  // No confirmed abuse: nothing, whatever evidence the graph read carries.
  {
    name: 'no confirmed abuse on the cluster',
    signals: { graph: graph({ abuseEvidence: { via: ['card'], markedAt: MARKED_AT } }) },
    verdict: 'allow',
    detail: 'not fired',
  },
  // 2026-11-22.1 has no verified_only: every path blocks.
  {
    name: 'under 2026-11-22.1, a path through a wifi alone',
    signals: { graph: marked(['wifi']) },
    policy: defaultPolicy20261122,
    verdict: 'block',
    detail: { via: 'wifi', marked_at: MARKED_AT },
  },
  {
    name: 'under 2026-11-22.1, the account is the marked subject',
    signals: { graph: marked([]) },
    policy: defaultPolicy20261122,
    verdict: 'block',
    detail: { via: '', marked_at: MARKED_AT },
  },
  // 2026-11-26.1: through another account of a cluster of at most 6, without risk on the event, a block reviews.
  {
    name: 'a family of 4 on one tablet, a path through the device, a free-mail signup',
    signals: { email: email({ freemail: true, mx: 'ok' }), graph: marked(['device'], { linkedAccounts: 4 }) },
    verdict: 'review',
    detail: { via: 'device', marked_at: MARKED_AT, rule: GROUP },
  },
  {
    name: 'a cluster of 6, a path through a card, no email (a login)',
    signals: { graph: marked(['card'], { linkedAccounts: 6 }) },
    verdict: 'review',
    detail: { via: 'card', marked_at: MARKED_AT, rule: GROUP },
  },
  {
    name: 'a cluster of 2, a path through an email (one mailbox behind both accounts)',
    signals: { email: email({ freemail: true, mx: 'ok' }), graph: marked(['email'], { linkedAccounts: 2 }) },
    verdict: 'block',
    detail: { via: 'email', marked_at: MARKED_AT },
  },
  {
    name: 'a cluster of 3, a path through a device then an email',
    signals: { graph: marked(['device', 'email'], { linkedAccounts: 3 }) },
    verdict: 'block',
    detail: { via: 'device,email', marked_at: MARKED_AT },
  },
  {
    name: 'a cluster of 7, a path through a card',
    signals: { graph: marked(['card'], { linkedAccounts: 7 }) },
    verdict: 'block',
    detail: { via: 'card', marked_at: MARKED_AT },
  },
  {
    name: 'a cluster of 4, a path through a device, a disposable email',
    signals: { email: email({ disposable: true }), graph: marked(['device'], { linkedAccounts: 4 }) },
    verdict: 'block',
    detail: { via: 'device', marked_at: MARKED_AT },
  },
  ...(['torExit', 'proxy', 'datacenter'] as const).map((flag) => ({
    name: `a cluster of 4, a path through a device, from a ${flag} address`,
    signals: { ip: ip({ [flag]: true }), graph: marked(['device'], { linkedAccounts: 4 }) },
    verdict: 'block' as const,
    detail: { via: 'device', marked_at: MARKED_AT },
  })),
  {
    name: 'a cluster of 4, the account is the marked subject',
    signals: { graph: marked([], { linkedAccounts: 4 }) },
    verdict: 'block',
    detail: { via: '', marked_at: MARKED_AT },
  },
  {
    name: 'a policy that reviews, a family of 4 on one tablet, a path through the device: no step, no rule',
    signals: { graph: marked(['device'], { linkedAccounts: 4 }) },
    policy: withRule('cluster_confirmed_abuse', { effects: { signup: 'review' } }),
    verdict: 'review',
    detail: { via: 'device', marked_at: MARKED_AT },
  },
  {
    name: 'under 2026-11-25.1, a family of 4 on one tablet, a path through the device',
    signals: { graph: marked(['device'], { linkedAccounts: 4 }) },
    policy: defaultPolicy20261125,
    verdict: 'block',
    detail: { via: 'device', marked_at: MARKED_AT },
  },
  // verified_only is a switch: only 1 turns it on.
  {
    name: 'with verified_only 0, a path through a wifi alone',
    signals: { graph: marked(['wifi']) },
    policy: withRule('cluster_confirmed_abuse', { verifiedOnly: 0 }),
    verdict: 'block',
    detail: { via: 'wifi', marked_at: MARKED_AT },
  },
  // The step-down only softens a block: an effect of review or info stays as the policy says, without the step's rule.
  {
    name: 'a policy that reviews, a path through a wifi alone',
    signals: { graph: marked(['wifi']) },
    policy: withRule('cluster_confirmed_abuse', { effects: { signup: 'review' } }),
    verdict: 'review',
    detail: { via: 'wifi', marked_at: MARKED_AT },
  },
  {
    name: 'a policy that only informs, a path through a wifi alone',
    signals: { graph: marked(['wifi']) },
    policy: withRule('cluster_confirmed_abuse', { effects: { signup: 'info' } }),
    verdict: 'allow',
    detail: { via: 'wifi', marked_at: MARKED_AT },
  },
];

describe('engine: cluster_confirmed_abuse, its evidence and the verified-only step-down', () => {
  for (const row of ROWS) {
    it(`${row.name}: ${row.verdict}`, () => {
      const d = run(row.signals, row.policy);
      expect(d.verdict).to.equal(row.verdict);
      const reason = d.reasons.find((r) => r.code === 'cluster_confirmed_abuse');
      if (row.detail === 'not fired') expect(reason).to.equal(undefined);
      else
        expect(reason).to.deep.equal(
          row.detail ? { code: 'cluster_confirmed_abuse', detail: row.detail } : { code: 'cluster_confirmed_abuse' },
        );
    });
  }

  for (const eventType of EVENT_TYPES) {
    it(`on ${eventType}, blocks through a card and reviews through identity values alone`, () => {
      expect(run({ eventType, graph: marked(['card']) }).verdict).to.equal('block');
      const d = run({ eventType, graph: marked(['phone', 'wifi']) });
      expect(d.verdict).to.equal('review');
      expect(d.reasons.filter((r) => r.code === 'cluster_confirmed_abuse')).to.deep.equal([
        { code: 'cluster_confirmed_abuse', detail: { via: 'phone,wifi', marked_at: MARKED_AT, rule: VERIFIED_ONLY } },
      ]);
    });
  }

  it('steps down only on the event types whose effect is block', () => {
    const policy = withRule('cluster_confirmed_abuse', { effects: { signup: 'block', login: 'review' } });
    const on = (eventType: EventType) => run({ eventType, graph: marked(['wifi']) }, policy);
    expect(on('signup').reasons[0]?.detail).to.deep.equal({ via: 'wifi', marked_at: MARKED_AT, rule: VERIFIED_ONLY });
    expect(on('login').reasons[0]?.detail).to.deep.equal({ via: 'wifi', marked_at: MARKED_AT });
    expect(on('checkout_attempt').reasons.filter((r) => r.code === 'cluster_confirmed_abuse')).to.deep.equal([]);
  });

  it('a stepped-down review is undone by taking the mark back, like the block', () => {
    expect(counterfactual(signals({ graph: marked(['wifi']) }), defaultRules, defaultPolicy)).to.deep.equal({
      from: 'review',
      to: 'allow',
      changes: [{ input: 'graph.confirmedAbuse', from: true, to: false, rule: 'cluster_confirmed_abuse', verdict: 'allow' }],
    });
  });
});
