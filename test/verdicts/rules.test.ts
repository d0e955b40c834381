// Every rule of the default policy that needs no identity graph, firing through the API, and
// not firing just under its threshold. Each test mints its own tenant, so counts start at zero.
import { expect } from 'chai';
import { aCheckout, aSignup, codes, DOMAINS, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

async function times(n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i++) await fn(i);
}

describe('default policy rules', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await verdictHarness();
  });

  describe('email', () => {
    it('malformed_email blocks a signup and a trial_start, reviews elsewhere', async () => {
      const signup = await h.verdict(aSignup({ email: 'john..doe@shop-mail.com' }));
      expect(signup.body.verdict).to.equal('block');
      expect(codes(signup)).to.deep.equal(['malformed_email']);
      const checkout = await h.verdict(aCheckout({ email: 'john@-bad-.com' }));
      expect(checkout.body.verdict).to.equal('review');
      expect(codes(checkout)).to.include('malformed_email');
    });

    it('disposable_email blocks a trial_start, reviews a signup, informs on login', async () => {
      const email = `temp@${DOMAINS.disposable}`;
      expect((await h.verdict({ event_type: 'trial_start', email, ip: IPS.clean })).body.verdict).to.equal('block');
      const signup = await h.verdict(aSignup({ email }));
      expect(signup.body.verdict).to.equal('review');
      expect(signup.body.reasons).to.deep.include({ code: 'disposable_email', detail: { domain: DOMAINS.disposable } });
      const login = await h.verdict({ event_type: 'login', email, external_user_id: 'u' });
      expect(login.body.verdict).to.equal('allow');
      expect(codes(login)).to.deep.equal(['disposable_email']);
    });

    it('does not treat a privacy relay as disposable', async () => {
      const res = await h.verdict(aSignup({ email: `me@${DOMAINS.relay}` }));
      expect(res.body.verdict).to.equal('allow');
      expect(codes(res)).to.deep.equal([]);
    });

    it('invalid_mx reviews a signup to a domain with no MX, and one with a null MX', async () => {
      const none = await h.verdict(aSignup({ email: `a@${DOMAINS.noMx}` }));
      expect(none.body.verdict).to.equal('review');
      expect(none.body.reasons).to.deep.include({ code: 'invalid_mx', detail: { mx: 'no_mx' } });
      const nullMx = await h.verdict(aSignup({ email: `a@${DOMAINS.nullMx}` }));
      expect(nullMx.body.reasons).to.deep.include({ code: 'invalid_mx', detail: { mx: 'null_mx' } });
    });

    it('young_domain reviews a signup from a domain registered days ago', async () => {
      const res = await h.verdict(aSignup({ email: `founder@${DOMAINS.young}` }));
      expect(res.body.verdict).to.equal('review');
      expect(res.body.reasons).to.deep.include({
        code: 'young_domain',
        detail: { age_days: 5, count: 5, threshold: 30, rule: 'young_domain.under_days' },
      });
      expect(codes(await h.verdict(aSignup()))).not.to.include('young_domain');
    });
  });

  describe('ip', () => {
    it('tor_exit blocks a checkout and reviews a signup', async () => {
      expect((await h.verdict(aCheckout({ ip: IPS.tor }))).body.verdict).to.equal('block');
      const signup = await h.verdict(aSignup({ ip: IPS.tor }));
      expect(signup.body.verdict).to.equal('review');
      expect(codes(signup)).to.deep.equal(['tor_exit']);
    });

    it('proxy_ip reviews a signup and only informs on a login', async () => {
      expect((await h.verdict(aSignup({ ip: IPS.proxy }))).body.verdict).to.equal('review');
      const login = await h.verdict({ event_type: 'login', ip: IPS.proxy, external_user_id: 'u' });
      expect(login.body.verdict).to.equal('allow');
      expect(codes(login)).to.deep.equal(['proxy_ip']);
    });

    it('datacenter_ip reviews a signup, also through an IPv4-mapped address, and not a login', async () => {
      const res = await h.verdict(aSignup({ ip: `::ffff:${IPS.datacenter}` }));
      expect(res.body.verdict).to.equal('review');
      expect(codes(res)).to.deep.equal(['datacenter_ip']);
      expect(codes(await h.verdict({ event_type: 'login', ip: IPS.datacenter }))).to.deep.equal([]);
    });
  });

  describe('velocity', () => {
    it('velocity_ip_signups reviews the 6th signup from an ip in an hour and blocks the 21st', async () => {
      const verdicts: string[] = [];
      await times(21, async () => verdicts.push((await h.verdict(aSignup({ ip: '100.64.20.1' }))).body.verdict));
      expect(verdicts.slice(0, 5)).to.deep.equal(Array(5).fill('allow'));
      expect(verdicts.slice(5, 20)).to.deep.equal(Array(15).fill('review'));
      expect(verdicts[20]).to.equal('block');
      const last = await h.verdict(aSignup({ ip: '100.64.20.1' }));
      expect(last.body.reasons).to.deep.include({
        code: 'velocity_ip_signups',
        detail: { count: 22, threshold: 20, window_seconds: 3600, rule: 'velocity_ip_signups.block_over' },
      });
    });

    it('velocity_device_signups reviews the 6th signup from one device in a day and blocks the 11th', async () => {
      const pk = h.tenant.keys.pk_test;
      const token = async () => {
        const res = await (await import('supertest'))
          .default(h.app)
          .post('/v1/device')
          .set('Authorization', `Bearer ${pk}`)
          .send({ components: { canvas: 'abc', fonts: ['a', 'b'] } });
        return res.body.device_token as string;
      };
      const verdicts: string[] = [];
      const fired: boolean[] = [];
      await times(11, async (i) => {
        const res = await h.verdict(aSignup({ ip: `100.64.30.${i + 1}`, device_token: await token() }));
        verdicts.push(res.body.verdict);
        fired.push((res.body.reasons as { code: string }[]).some((r) => r.code === 'velocity_device_signups'));
      });
      // A family plan's five pass; the 6th to 10th are reviewed; the 11th is blocked.
      expect(verdicts).to.deep.equal([...Array(5).fill('allow'), ...Array(5).fill('review'), 'block']);
      expect(fired).to.deep.equal([...Array(5).fill(false), ...Array(6).fill(true)]);
    });

    it('velocity_domain_signups reviews the 21st signup from one company domain, never from a freemail domain', async () => {
      const corp: string[] = [];
      const free: string[] = [];
      await times(21, async (i) => {
        corp.push((await h.verdict(aSignup({ email: `p${i}@${DOMAINS.corp}`, ip: `100.64.40.${i + 1}` }))).body.verdict);
        free.push((await h.verdict(aSignup({ email: `p${i}@${DOMAINS.freemail}`, ip: `100.64.41.${i + 1}` }))).body.verdict);
      });
      expect(corp.slice(0, 20)).to.deep.equal(Array(20).fill('allow'));
      expect(corp[20]).to.equal('review');
      expect(free).to.deep.equal(Array(21).fill('allow'));
    });

    it('velocity_card_attempts blocks the 6th attempt with one card in an hour', async () => {
      const verdicts: string[] = [];
      await times(6, async (i) =>
        verdicts.push((await h.verdict(aCheckout({ ip: `100.64.50.${i + 1}` }, { card_fingerprint: 'card_v' }))).body.verdict),
      );
      expect(verdicts).to.deep.equal(['allow', 'allow', 'allow', 'allow', 'allow', 'block']);
    });

    it('velocity_ip_card_attempts blocks the 4th distinct card from one ip, not a repeated card', async () => {
      const verdicts: string[] = [];
      await times(3, async (i) => verdicts.push((await h.verdict(aCheckout({}, { card_fingerprint: `card_${i}` }))).body.verdict));
      verdicts.push((await h.verdict(aCheckout({}, { card_fingerprint: 'card_0' }))).body.verdict);
      verdicts.push((await h.verdict(aCheckout({}, { card_fingerprint: 'card_3' }))).body.verdict);
      expect(verdicts).to.deep.equal(['allow', 'allow', 'allow', 'allow', 'block']);
    });

    it('card_probe_pattern blocks the 5th small attempt in ten minutes, with attempts_10m', async () => {
      const verdicts: string[] = [];
      await times(5, async (i) =>
        verdicts.push(
          (await h.verdict(aCheckout({ ip: `100.64.60.${i + 1}` }, { card_fingerprint: 'card_probe', amount: 50 }))).body.verdict,
        ),
      );
      expect(verdicts.slice(0, 4)).to.deep.equal(['allow', 'allow', 'allow', 'allow']);
      expect(verdicts[4]).to.equal('block');
      const again = await h.verdict(aCheckout({ ip: '100.64.60.9' }, { card_fingerprint: 'card_probe', amount: 100 }));
      expect(again.body.reasons).to.deep.include({
        code: 'card_probe_pattern',
        detail: { attempts_10m: 6, count: 6, threshold: 5, window_seconds: 600, max_amount: 100, rule: 'card_probe_pattern.at_least' },
      });
    });

    it('card_probe_pattern ignores attempts above 100 minor units', async () => {
      await times(6, async (i) => {
        const res = await h.verdict(aCheckout({ ip: `100.64.70.${i + 1}` }, { card_fingerprint: `card_big_${i}`, amount: 101 }));
        expect(codes(res)).not.to.include('card_probe_pattern');
      });
    });
  });

  describe('payment', () => {
    it('prepaid_card reviews a checkout; unknown funding fires nothing; payment is ignored on a signup', async () => {
      const prepaid = await h.verdict(aCheckout({}, { card_fingerprint: 'card_pp', card_funding: 'prepaid' }));
      expect(prepaid.body.verdict).to.equal('review');
      expect(codes(prepaid)).to.deep.equal(['prepaid_card']);
      expect(codes(await h.verdict(aCheckout({}, { card_fingerprint: 'card_u', card_funding: 'unknown' })))).to.deep.equal([]);
      expect(codes(await h.verdict(aSignup({ payment: { card_funding: 'prepaid' } })))).to.deep.equal([]);
    });
  });
});
