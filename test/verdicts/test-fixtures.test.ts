// Integrators' test fixtures: with a test key each forces its outcome, whatever else the
// event carries; with a live key the same values are judged like any other event.
import { expect } from 'chai';
import request from 'supertest';
import { bearer } from '../support/fixtures.js';
import { aCheckout, aSignup, codes, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

describe('test-mode fixtures', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await verdictHarness();
  });
  const send = (key: string, body: object) => request(h.app).post('/v1/verdict').set(bearer(key)).send(body);
  const test = (body: object) => send(h.tenant.keys.sk_test, body);
  const live = (body: object) => send(h.tenant.keys.sk_live, body);

  const outcomes: [string, string, string | undefined][] = [
    ['allow', 'allow', undefined],
    ['review', 'review', undefined],
    ['block', 'block', undefined],
    ['challenge', 'review', 'challenge'],
    ['hold', 'block', 'hold'],
  ];
  for (const [outcome, verdict, action] of outcomes) {
    it(`external_user_id test_${outcome}_… and an email @${outcome}.doorman.test give ${verdict}${action ? ` with ${action}` : ''} on test keys only`, async () => {
      for (const body of [
        aSignup({ external_user_id: `test_${outcome}_42` }),
        { event_type: 'login', email: `someone@${outcome}.doorman.test`, ip: IPS.clean },
      ]) {
        const res = await test(body);
        expect(res.status).to.equal(200);
        expect(res.body.verdict, JSON.stringify(body)).to.equal(verdict);
        expect(res.body.recommended_action).to.equal(action);
        expect(res.body.reasons).to.deep.include({ code: 'test_fixture', detail: { outcome } });
        const honest = await live(body);
        expect(honest.status).to.equal(200);
        expect(codes(honest)).not.to.include('test_fixture');
        expect(honest.body.recommended_action).to.equal(undefined);
      }
    });
  }

  it('decides even over a tor exit and a blocklist hit (test keys)', async () => {
    const res = await test(aSignup({ external_user_id: 'test_allow_tor', ip: IPS.tor }));
    expect(res.body.verdict).to.equal('allow');
    expect(codes(res)).to.include.members(['test_fixture', 'tor_exit']);
    expect((await live(aSignup({ external_user_id: 'test_allow_tor', ip: IPS.tor }))).body.verdict).to.equal('review');
  });

  it('card_test_probe fires card_probe_pattern on the first checkout with a test key, never with a live key', async () => {
    const res = await test(aCheckout({}, { card_fingerprint: 'card_test_probe', amount: 5000 }));
    expect(res.body.verdict).to.equal('block');
    expect(res.body.reasons.find((r: { code: string }) => r.code === 'card_probe_pattern')?.detail).to.include({ attempts_10m: 5 });
    const honest = await live(aCheckout({}, { card_fingerprint: 'card_test_probe', amount: 5000 }));
    expect(honest.body.verdict).to.equal('allow');
    expect(codes(honest)).not.to.include('card_probe_pattern');
  });

  it('drops device_token dev_test_dropped silently in both modes', async () => {
    for (const [i, key] of [h.tenant.keys.sk_test, h.tenant.keys.sk_live].entries()) {
      const res = await send(key, aSignup({ device_token: 'dev_test_dropped', ip: `100.64.77.${i + 1}` }));
      expect(res.status).to.equal(200);
      expect(res.body.verdict).to.equal('allow');
      const { rows } = await h.deps.db.query('SELECT signals FROM events WHERE id = $1', [res.body.id]);
      expect(rows[0].signals.deviceId).to.equal(undefined);
    }
  });
});
