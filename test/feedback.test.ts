// POST /v1/feedback: outcomes recorded once and spread across the subject's identity cluster.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { bearer } from './support/fixtures.js';
import { aCheckout, aSignup, codes, IPS, verdictHarness, type Harness } from './support/verdict-harness.js';

describe('POST /v1/feedback', function () {
  this.timeout(30_000);
  let h: Harness;
  beforeEach(async () => {
    h = await verdictHarness();
  });
  // Like a verdict, a report is followed by the next step of the story once its mark is applied.
  const feedback = async (body: object, key = h.tenant.keys.sk_test) => {
    const res = await request(h.app).post('/v1/feedback').set(bearer(key)).send(body);
    await h.graphSettled();
    return res;
  };

  it('confirmed_abuse marks the whole cluster: a linked account is blocked afterwards', async () => {
    // Linked through an email (Doorman normalises it: a verified identifier, so the link convicts).
    const bad = await h.verdict(aSignup({ external_user_id: 'fraudster', email: 'fraud.ster@gmail.com', identity: { phone: '+1555100' } }));
    expect((await feedback({ subject: { kind: 'event_id', value: bad.body.id }, outcome: 'confirmed_abuse' })).body).to.deep.equal({
      ok: true,
    });
    const linked = await h.verdict(aSignup({ external_user_id: 'alias', email: 'fraudster+alt@gmail.com', ip: '100.64.8.1' }));
    expect(linked.body.verdict).to.equal('block');
    expect(codes(linked)).to.include('cluster_confirmed_abuse');
    // Through the phone alone (a value the caller typed in), the mark is a lead: review.
    const byPhone = await h.verdict(aSignup({ external_user_id: 'housemate', identity: { phone: '+1555100' }, ip: '100.64.8.3' }));
    expect(byPhone.body.verdict).to.equal('review');
    expect(byPhone.body.reasons).to.deep.include({
      code: 'cluster_confirmed_abuse',
      detail: {
        via: 'phone',
        marked_at: byPhone.body.reasons.find((r: { code: string }) => r.code === 'cluster_confirmed_abuse').detail.marked_at,
        rule: 'cluster_confirmed_abuse.verified_only',
      },
    });
    const unrelated = await h.verdict(aSignup({ external_user_id: 'someone', ip: '100.64.8.2' }));
    expect(unrelated.body.verdict).to.equal('allow');
  });

  it('a cluster that merges later inherits the mark', async () => {
    await h.verdict(aSignup({ external_user_id: 'x1', email: 'marked@shop-mail.com' }));
    expect((await feedback({ subject: { kind: 'email', value: 'Marked@shop-mail.com' }, outcome: 'confirmed_abuse' })).status).to.equal(
      200,
    );
    await h.verdict(aSignup({ external_user_id: 'y1', identity: { wallet: 'w9' }, ip: '100.64.8.3' }));
    const joins = await h.verdict(
      aSignup({ external_user_id: 'y2', identity: { wallet: 'w9' }, email: 'marked@shop-mail.com', ip: '100.64.8.4' }),
    );
    expect(codes(joins)).to.include('cluster_confirmed_abuse');
    const later = await h.verdict(aSignup({ external_user_id: 'y1', ip: '100.64.8.5' }));
    expect(later.body.verdict).to.equal('block');
  });

  it('false_positive suppresses the codes that misfired for that cluster, and counts as trust', async () => {
    const flagged = await h.verdict(aSignup({ external_user_id: 'good_user', ip: IPS.proxy }));
    expect(codes(flagged)).to.deep.equal(['proxy_ip']);
    expect(
      (await feedback({ subject: { kind: 'external_user_id', value: 'good_user' }, outcome: 'false_positive', note: 'corporate VPN' }))
        .status,
    ).to.equal(200);
    const again = await h.verdict({
      event_type: 'checkout_attempt',
      external_user_id: 'good_user',
      ip: IPS.proxy,
      payment: { card_fingerprint: 'c', amount: 900 },
    });
    expect(again.body.verdict).to.equal('allow');
    expect(codes(again)).to.deep.equal(['cluster_trusted']);
    // Trust turns a review caused only by ip rules into allow; a block still blocks.
    const tor = await h.verdict({ event_type: 'login', external_user_id: 'good_user', ip: IPS.tor });
    expect(tor.body.verdict).to.equal('allow');
    expect(codes(tor)).to.deep.equal(['cluster_trusted', 'tor_exit']);
    const torCheckout = await h.verdict({
      event_type: 'checkout_attempt',
      external_user_id: 'good_user',
      ip: IPS.tor,
      payment: { card_fingerprint: 'c', amount: 900 },
    });
    expect(torCheckout.body.verdict).to.equal('block');
  });

  it('chargeback: at least review on a checkout in the cluster, and it cancels trust', async () => {
    await h.verdict(aCheckout({ external_user_id: 'payer' }, { card_fingerprint: 'card_cb' }));
    expect((await feedback({ subject: { kind: 'external_user_id', value: 'payer' }, outcome: 'false_positive' })).status).to.equal(200);
    expect((await feedback({ subject: { kind: 'external_user_id', value: 'payer' }, outcome: 'chargeback' })).status).to.equal(200);
    const next = await h.verdict(aCheckout({ external_user_id: 'payer', ip: '100.64.8.9' }, { card_fingerprint: 'card_cb' }));
    expect(next.body.verdict).to.equal('review');
    expect(next.body.reasons).to.deep.include({ code: 'cluster_chargeback', detail: { chargebacks: 1 } });
    expect(codes(next)).not.to.include('cluster_trusted');
    const login = await h.verdict({ event_type: 'login', external_user_id: 'payer' });
    expect(login.body.verdict).to.equal('allow');
  });

  it('stores an identical repost once and says so (duplicate: true), and a different outcome for the same subject too', async () => {
    const ev = await h.verdict(aCheckout({ external_user_id: 'dup' }, { card_fingerprint: 'card_dup' }));
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await feedback({ subject: { kind: 'event_id', value: ev.body.id }, outcome: 'chargeback' }));
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
    // The first answer is exactly the contract's; the additive field appears only on a repost.
    expect(answers.map((a) => a.body)).to.deep.equal([{ ok: true }, { ok: true, duplicate: true }, { ok: true, duplicate: true }]);
    expect((await feedback({ subject: { kind: 'event_id', value: ev.body.id }, outcome: 'false_positive' })).body).to.deep.equal({
      ok: true,
    });
    const { rows } = await h.deps.db.query('SELECT outcome FROM feedback WHERE tenant_id = $1 ORDER BY outcome', [h.tenant.tenantId]);
    expect(rows.map((r) => r.outcome)).to.deep.equal(['chargeback', 'false_positive']);
    const next = await h.verdict(aCheckout({ external_user_id: 'dup', ip: '100.64.8.10' }, { card_fingerprint: 'card_dup' }));
    expect(next.body.reasons).to.deep.include({ code: 'cluster_chargeback', detail: { chargebacks: 1 } });
  });

  it('trusts a cluster that converted a trial 30 or more days ago', async () => {
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    const past = createApp({ ...h.deps, clock: { now: () => longAgo } });
    await request(past)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ event_type: 'trial_convert', external_user_id: 'loyal', identity: { phone: '+1555200' } })
      .expect(200);
    await h.graphSettled();
    const now = await h.verdict(aSignup({ external_user_id: 'loyal', ip: IPS.datacenter }));
    expect(now.body.verdict).to.equal('allow');
    expect(codes(now)).to.deep.equal(['cluster_trusted', 'datacenter_ip']);
  });

  it('answers 404 for a subject unknown in this tenant and mode, and 400 for a kind outside the closed set', async () => {
    expect((await feedback({ subject: { kind: 'event_id', value: 'evt_nope' }, outcome: 'chargeback' })).status).to.equal(404);
    expect((await feedback({ subject: { kind: 'external_user_id', value: 'nobody' }, outcome: 'chargeback' })).status).to.equal(404);
    expect((await feedback({ subject: { kind: 'email', value: 'ghost@shop-mail.com' }, outcome: 'chargeback' })).status).to.equal(404);
    const ev = await h.verdict(aSignup({ external_user_id: 'mode_user' }));
    expect(
      (await feedback({ subject: { kind: 'event_id', value: ev.body.id }, outcome: 'chargeback' }, h.tenant.keys.sk_live)).status,
    ).to.equal(404);
    const ip = await feedback({ subject: { kind: 'ip', value: '1.2.3.4' }, outcome: 'confirmed_abuse' });
    expect(ip.status).to.equal(400);
    expect(ip.body.details.issues[0].path).to.equal('/subject/kind');
    expect((await feedback({ subject: { kind: 'email', value: '' }, outcome: 'chargeback', note: 'x'.repeat(2001) })).status).to.equal(400);
  });
});
