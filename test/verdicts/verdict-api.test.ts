// POST /v1/verdict: the request contract (§2.1, §2.2), the response (§2.3) and storage (§3).
import { expect } from 'chai';
import request from 'supertest';
import { bearer } from '../support/fixtures.js';
import { aCheckout, aSignup, codes, DOMAINS, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

describe('POST /v1/verdict', () => {
  let h: Harness;
  before(async () => {
    h = await verdictHarness();
  });

  const issuesOf = (res: request.Response) => res.body.details.issues as { path: string; message: string }[];

  describe('validation', () => {
    it('rejects an unknown top-level key, listing every failure at once', async () => {
      const res = await h.verdict({ event_type: 'signup', email: 'x', ip: 'not-an-ip', colour: 'red' });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('invalid_request');
      const paths = issuesOf(res).map((i) => i.path);
      expect(paths).to.include.members(['/colour', '/email', '/ip']);
    });

    for (const type of ['signup', 'trial_start', 'checkout_attempt']) {
      it(`requires ip on ${type}`, async () => {
        const res = await h.verdict({ event_type: type, email: `a@${DOMAINS.good}` });
        expect(res.status).to.equal(400);
        expect(issuesOf(res)).to.deep.include({ path: '/ip', message: 'is required' });
      });
    }

    for (const type of ['trial_convert', 'login']) {
      it(`accepts ${type} without ip`, async () => {
        const res = await h.verdict({ event_type: type, external_user_id: 'u1' });
        expect(res.status).to.equal(200);
      });
    }

    it('rejects an unknown event type and a bad identity map', async () => {
      const res = await h.verdict({ event_type: 'purchase', identity: { ['k'.repeat(65)]: 'v', phone: 7 } });
      expect(res.status).to.equal(400);
      const paths = issuesOf(res).map((i) => i.path);
      expect(paths).to.include('/event_type');
      expect(paths).to.include('/identity/phone');
      expect(paths.some((p) => p.startsWith('/identity/kkk'))).to.equal(true);
    });

    it('accepts IPv6 and IPv4-mapped addresses', async () => {
      expect((await h.verdict(aSignup({ ip: '2001:db8::1' }))).status).to.equal(200);
      expect((await h.verdict(aSignup({ ip: '::ffff:100.64.1.1' }))).status).to.equal(200);
    });

    it('ignores unknown payment keys but validates the known ones', async () => {
      expect((await h.verdict(aCheckout({}, { wallet: 'apple_pay' }))).status).to.equal(200);
      const bad = await h.verdict(aCheckout({}, { amount: -1, card_funding: 'gift', currency: 'us', card_country: 'FRA' }));
      expect(
        issuesOf(bad)
          .map((i) => i.path)
          .sort(),
      ).to.deep.equal(['/payment/amount', '/payment/card_country', '/payment/card_funding', '/payment/currency']);
    });

    it('never validates context', async () => {
      const res = await h.verdict(aSignup({ context: { anything: [1, { deep: null }], 'weird key': true } }));
      expect(res.status).to.equal(200);
    });
  });

  describe('the response and the stored event', () => {
    it('answers with id, verdict, reasons and a dated policy version, and stores the event', async () => {
      const res = await h.verdict(aSignup({ external_user_id: 'user_42', context: { plan: 'pro' } }));
      expect(res.status).to.equal(200);
      expect(res.body.id).to.match(/^evt_[0-9a-f]{32}$/);
      expect(res.body.verdict).to.equal('allow');
      expect(res.body.reasons).to.deep.equal([]);
      expect(res.body.policy_version).to.match(/^\d{4}-\d{2}-\d{2}\.\d+$/);
      expect(res.body).not.to.have.property('recommended_action');

      const stored = await request(h.app).get(`/v1/events/${res.body.id}`).set(bearer(h.tenant.keys.sk_test));
      expect(stored.status).to.equal(200);
      expect(stored.body).to.include({
        id: res.body.id,
        event_type: 'signup',
        verdict: 'allow',
        policy_version: res.body.policy_version,
        external_user_id: 'user_42',
      });
      expect(new Date(stored.body.created_at).toISOString()).to.equal(stored.body.created_at);
      expect(stored.body.context).to.deep.equal({ plan: 'pro' });
    });

    it('stores the signals the engine saw, and payment normalised to lowercase', async () => {
      const res = await h.verdict(
        aCheckout({}, { card_fingerprint: 'card_normalise', card_country: 'FR', currency: 'EUR', card_funding: 'debit' }),
      );
      const { rows } = await h.deps.db.query('SELECT request, signals FROM events WHERE id = $1', [res.body.id]);
      expect(rows[0].request.payment).to.include({ card_country: 'fr', currency: 'eur' });
      expect(rows[0].signals.payment).to.include({ country: 'fr', currency: 'eur', funding: 'debit' });
      expect(rows[0].signals.velocity.cardAttempts).to.equal(1);
    });

    it('keeps events of the other mode and of other tenants invisible (404)', async () => {
      const res = await h.verdict(aSignup());
      const otherMode = await request(h.app).get(`/v1/events/${res.body.id}`).set(bearer(h.tenant.keys.sk_live));
      expect(otherMode.status).to.equal(404);
      const other = await verdictHarness();
      const otherTenant = await request(h.app).get(`/v1/events/${res.body.id}`).set(bearer(other.tenant.keys.sk_test));
      expect(otherTenant.status).to.equal(404);
      expect(otherTenant.body.error).to.equal('not_found');
    });

    it('queues a review for a review verdict', async () => {
      const res = await h.verdict(aSignup({ ip: IPS.proxy }));
      expect(res.body.verdict).to.equal('review');
      expect(codes(res)).to.deep.equal(['proxy_ip']);
      const { rows } = await h.deps.db.query('SELECT status FROM reviews WHERE tenant_id = $1 AND event_id = $2', [
        h.tenant.tenantId,
        res.body.id,
      ]);
      expect(rows).to.deep.equal([{ status: 'pending' }]);
    });
  });
});
