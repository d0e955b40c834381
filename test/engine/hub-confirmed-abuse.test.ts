// hub_confirmed_abuse as a table: a hub this event uses whose other accounts include confirmed
// abusers; its detail (`via`, `hub_accounts`, `confirmed_accounts`, `formed_seconds`,
// `marked_at`), and its effect by the evidence: a farm (a verified identifier that became a hub
// within the policy's window) blocks; a lead (verified, fast, or one in five of its accounts
// confirmed) reviews; a place (a typed value grown slowly, few confirmed) informs. Engine level.
import { expect } from 'chai';
import { counterfactual } from '../../src/engine/counterfactual.js';
import { defaultPolicy, defaultPolicy20261125 } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { GraphSignal, Signals } from '../../src/engine/types.js';
import { EVENT_TYPES, graph, run, signals, withRule } from './engine-builders.js';

const MARKED_AT = '2026-11-20T08:15:00.000Z';
const DAY = 86_400;
const FARM = 'hub_confirmed_abuse.farm';
const hub = (h: Partial<NonNullable<GraphSignal['hub']>>) =>
  graph({ hub: { kind: 'device', accounts: 30, confirmedAccounts: 2, formedSeconds: 600, markedAt: MARKED_AT, ...h } });
const detail = (h: { via: string; hub_accounts: number; confirmed_accounts: number; formed_seconds: number }, rule?: string) => ({
  ...h,
  marked_at: MARKED_AT,
  ...(rule && { rule }),
});

const ROWS: { name: string; signals: Partial<Signals>; verdict: 'allow' | 'review' | 'block'; detail?: Record<string, string | number> }[] =
  [
    { name: 'no hub', signals: { graph: graph({}) }, verdict: 'allow' },
    { name: 'a hub, no confirmed account on it', signals: { graph: hub({ confirmedAccounts: 0 }) }, verdict: 'allow' },
    {
      name: 'a device that became a hub in 10 minutes, 2 of its 30 accounts confirmed (a farm)',
      signals: { graph: hub({}) },
      verdict: 'block',
      detail: detail({ via: 'device', hub_accounts: 30, confirmed_accounts: 2, formed_seconds: 600 }),
    },
    {
      name: 'a card that became a hub in exactly a day',
      signals: { graph: hub({ kind: 'card', formedSeconds: DAY }) },
      verdict: 'block',
      detail: detail({ via: 'card', hub_accounts: 30, confirmed_accounts: 2, formed_seconds: DAY }),
    },
    {
      name: 'an email that became a hub in a minute',
      signals: { graph: hub({ kind: 'email', formedSeconds: 60, accounts: 26, confirmedAccounts: 1 }) },
      verdict: 'block',
      detail: detail({ via: 'email', hub_accounts: 26, confirmed_accounts: 1, formed_seconds: 60 }),
    },
    {
      name: 'a kiosk: a device that became a hub over three weeks',
      signals: { graph: hub({ formedSeconds: DAY + 1 }) },
      verdict: 'review',
      detail: detail({ via: 'device', hub_accounts: 30, confirmed_accounts: 2, formed_seconds: DAY + 1 }, FARM),
    },
    {
      name: 'an office network: a value the caller typed that became a hub over weeks, 1 of its 40 accounts confirmed',
      signals: { graph: hub({ kind: 'wifi', formedSeconds: 20 * DAY, accounts: 40, confirmedAccounts: 1 }) },
      verdict: 'allow',
      detail: detail({ via: 'wifi', hub_accounts: 40, confirmed_accounts: 1, formed_seconds: 20 * DAY }, 'hub_confirmed_abuse.place'),
    },
    {
      name: 'a patient ring on a typed phone: a hub over weeks, 3 of its 15 accounts confirmed (one in five)',
      signals: { graph: hub({ kind: 'phone', formedSeconds: 20 * DAY, accounts: 15, confirmedAccounts: 3 }) },
      verdict: 'review',
      detail: detail({ via: 'phone', hub_accounts: 15, confirmed_accounts: 3, formed_seconds: 20 * DAY }, FARM),
    },
    {
      name: 'the same with 2 of its 15 accounts confirmed',
      signals: { graph: hub({ kind: 'phone', formedSeconds: 20 * DAY, accounts: 15, confirmedAccounts: 2 }) },
      verdict: 'allow',
      detail: detail({ via: 'phone', hub_accounts: 15, confirmed_accounts: 2, formed_seconds: 20 * DAY }, 'hub_confirmed_abuse.place'),
    },
    {
      name: 'a value the caller typed (an identity phone), a hub in a minute',
      signals: { graph: hub({ kind: 'phone', formedSeconds: 60, accounts: 12 }) },
      verdict: 'review',
      detail: detail({ via: 'phone', hub_accounts: 12, confirmed_accounts: 2, formed_seconds: 60 }, FARM),
    },
  ];

describe('engine: hub_confirmed_abuse, a hub tying this account to confirmed abusers', () => {
  for (const row of ROWS) {
    it(`${row.name}: ${row.verdict}`, () => {
      const d = run(row.signals);
      expect(d.verdict).to.equal(row.verdict);
      const reason = d.reasons.find((r) => r.code === 'hub_confirmed_abuse');
      if (!row.detail) expect(reason).to.equal(undefined);
      else expect(reason).to.deep.equal({ code: 'hub_confirmed_abuse', detail: row.detail });
    });
  }

  it('acts on every event type under 2026-11-26.1, and not at all under 2026-11-25.1', () => {
    for (const eventType of EVENT_TYPES) {
      expect(run({ eventType, graph: hub({}) }).verdict, eventType).to.equal('block');
      expect(run({ eventType, graph: hub({ kind: 'wifi', formedSeconds: 60 }) }).verdict, eventType).to.equal('review');
      expect(run({ eventType, graph: hub({}) }, defaultPolicy20261125).verdict, eventType).to.equal('allow');
    }
  });

  it('without a window, no hub is a farm: a block steps down to review; a review effect reviews without a step', () => {
    const noWindow = withRule('hub_confirmed_abuse', { windowSeconds: undefined });
    const stepped = run({ graph: hub({ formedSeconds: 0 }) }, noWindow);
    expect(stepped.verdict).to.equal('review');
    expect(stepped.reasons).to.deep.equal([
      { code: 'hub_confirmed_abuse', detail: detail({ via: 'device', hub_accounts: 30, confirmed_accounts: 2, formed_seconds: 0 }, FARM) },
    ]);
    const reviews = withRule('hub_confirmed_abuse', { effects: { signup: 'review' } });
    const d = run({ graph: hub({ kind: 'wifi', formedSeconds: 10 * DAY, confirmedAccounts: 6 }) }, reviews);
    expect(d.verdict).to.equal('review');
    expect(d.reasons[0]).to.deep.equal({
      code: 'hub_confirmed_abuse',
      detail: detail({ via: 'wifi', hub_accounts: 30, confirmed_accounts: 6, formed_seconds: 10 * DAY }),
    });
  });

  it('is undone by the hub alone: without it, the verdict is allow', () => {
    expect(counterfactual(signals({ graph: hub({}) }), defaultRules, defaultPolicy)?.changes).to.deep.equal([
      { input: 'graph.hub', from: 'device', to: null, rule: 'hub_confirmed_abuse', verdict: 'allow' },
    ]);
  });

  it('is not a conviction false_positive feedback cannot touch: the cluster it suppresses it in lets the account through', () => {
    expect(run({ graph: { ...hub({}), suppressedCodes: ['hub_confirmed_abuse'] } }).verdict).to.equal('allow');
  });
});
