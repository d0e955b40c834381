// Against the real stores, the default policy 2026-11-26.1: a farm larger than a hub is still
// caught after its first confirmed member (hub_confirmed_abuse, via the hub's kind), and undone
// by a retraction; honest groups that sign up together (a family plan on one tablet, a team
// behind its office's address on its company's domain) are not held; the same burst with risk on
// it (disposable emails) still is.
import { expect } from 'chai';
import request from 'supertest';
import { listFeedback } from '../../src/feedback/feedback-store.js';
import { retractFeedback } from '../../src/feedback/retract-feedback.js';
import { issueToken, recorded } from '../support/device-tokens.js';
import { bearer } from '../support/fixtures.js';
import { DOMAINS, verdictHarness, type Harness } from '../support/verdict-harness.js';

type Reason = { code: string; detail?: Record<string, unknown> };
const reasons = (res: request.Response) => res.body.reasons as Reason[];
const reason = (res: request.Response, code: string) => reasons(res).find((r) => r.code === code);
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function confirm(h: Harness, account: string): Promise<void> {
  await request(h.app)
    .post('/v1/feedback')
    .set(bearer(h.tenant.keys.sk_test))
    .send({ subject: { kind: 'external_user_id', value: account }, outcome: 'confirmed_abuse' })
    .expect(200);
  await h.graphSettled();
}

describe('rings past the hub and honest groups (default policy 2026-11-26.1)', function () {
  this.timeout(120_000);

  it('a farm of 28 on one device token: after one confirmed member, the others are blocked through the hub, via device; a retraction undoes it', async () => {
    const h = await verdictHarness();
    const token = await issueToken(h.app, h.tenant.keys.pk_test, recorded('desktop-load-1'));
    const run = unique();
    for (let i = 0; i < 28; i++) {
      const res = await h.verdict({
        event_type: 'signup',
        external_user_id: `farm_${run}_${i}`,
        email: `f${i}.${run}@${DOMAINS.freemail}`,
        ip: `100.64.${30 + (i >> 8)}.${(i % 250) + 1}`,
        device_token: token,
      });
      expect(res.status).to.equal(200);
    }
    // Past 25 accounts the device is a hub: the farm's accounts are no longer one cluster.
    const { records } = await h.deps.graph.executeQuery(
      `MATCH (i:Identifier {tenantId: $t, mode: 'test', kind: 'device'}) RETURN i.hub AS hub, i.accounts AS accounts`,
      { t: h.tenant.tenantId },
    );
    expect(records.map((r) => [r.get('hub'), r.get('accounts')])).to.deep.equal([[true, 28]]);

    await confirm(h, `farm_${run}_0`);
    const login = await h.verdict({ event_type: 'login', external_user_id: `farm_${run}_17`, ip: '100.64.31.1', device_token: token });
    expect(login.body.verdict, JSON.stringify(login.body)).to.equal('block');
    const hub = reason(login, 'hub_confirmed_abuse')!;
    expect(hub.detail).to.include({ via: 'device', hub_accounts: 28, confirmed_accounts: 1 });
    expect(hub.detail!.formed_seconds).to.be.a('number').and.at.most(600);
    expect(hub.detail!.marked_at).to.be.a('string');
    expect(hub.detail).to.not.have.property('rule');

    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const [mark] = await listFeedback(h.deps.db, scope, { externalUserId: `farm_${run}_0` });
    await retractFeedback(h.deps, scope, {
      feedbackId: mark!.feedback_id,
      note: 'sent by mistake',
      actor: { ...scope, analystId: null, analystEmail: 'operator (test)' },
    });
    await h.graphSettled();
    const again = await h.verdict({ event_type: 'login', external_user_id: `farm_${run}_17`, ip: '100.64.31.1', device_token: token });
    expect(reason(again, 'hub_confirmed_abuse')).to.equal(undefined);
    expect(again.body.verdict).to.equal('allow');
  });

  it('a ring of 12 sharing only an identity value past its threshold of 10: the half not confirmed is held through the hub, never blocked', async () => {
    const h = await verdictHarness();
    const run = unique();
    const deviceId = `dev-${run}`;
    for (let i = 0; i < 12; i++)
      await h.verdict({
        event_type: 'signup',
        external_user_id: `ring_${run}_${i}`,
        email: `r${i}.${run}@${DOMAINS.freemail}`,
        ip: `100.64.40.${i + 1}`,
        identity: { device_id: deviceId },
      });
    await confirm(h, `ring_${run}_0`);
    await confirm(h, `ring_${run}_1`);
    const res = await h.verdict({
      event_type: 'login',
      external_user_id: `ring_${run}_9`,
      ip: '100.64.40.9',
      identity: { device_id: deviceId },
    });
    expect(res.body.verdict).to.equal('review');
    expect(reason(res, 'hub_confirmed_abuse')!.detail).to.include({
      via: 'device_id',
      hub_accounts: 12,
      confirmed_accounts: 2,
      rule: 'hub_confirmed_abuse.farm',
    });
  });

  it('a ring of 12 paying with one card (a hub past 10): a later login without the card is blocked through the card it paid with', async () => {
    const h = await verdictHarness();
    const run = unique();
    for (let i = 0; i < 12; i++) {
      const account = `payer_${run}_${i}`;
      await h.verdict({
        event_type: 'signup',
        external_user_id: account,
        email: `p${i}.${run}@${DOMAINS.freemail}`,
        ip: `100.64.70.${i + 1}`,
      });
      await h.verdict({
        event_type: 'checkout_attempt',
        external_user_id: account,
        ip: `100.64.70.${i + 1}`,
        payment: { card_fingerprint: `card-${run}`, amount: 5000, currency: 'usd' },
      });
    }
    await confirm(h, `payer_${run}_0`);
    const res = await h.verdict({ event_type: 'login', external_user_id: `payer_${run}_8`, ip: '100.64.70.9' });
    expect(res.body.verdict).to.equal('block');
    expect(reason(res, 'hub_confirmed_abuse')!.detail).to.include({ via: 'card', hub_accounts: 12, confirmed_accounts: 1 });
  });

  it('a family plan: 5 signups in an evening on the family tablet, at home, on free-mail: none held or blocked; the same burst on disposable emails is held from the 3rd', async () => {
    for (const disposable of [false, true]) {
      const h = await verdictHarness();
      const token = await issueToken(h.app, h.tenant.keys.pk_test, recorded('hidpi-laptop'));
      const run = unique();
      const verdicts: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await h.verdict({
          event_type: 'signup',
          external_user_id: `fam_${run}_${i}`,
          email: `m${i}.${run}@${disposable ? DOMAINS.disposable : DOMAINS.freemail}`,
          ip: '100.64.50.1',
          identity: { wifi: `home-${run}`, home_ip: `home-ip-${run}` },
          device_token: token,
        });
        verdicts.push(res.body.verdict);
        if (!disposable && i >= 2) expect(reason(res, 'identity_cluster')!.detail).to.include({ count: i + 1, group: 'household' });
        if (disposable && i >= 2)
          expect(reason(res, 'identity_cluster')!.detail).to.include({
            evidence: 'disposable_email',
            rule: 'identity_cluster.min_accounts',
          });
      }
      // Disposable emails review on their own (disposable_email); identity_cluster adds its hold from the 3rd.
      expect(verdicts).to.deep.equal(
        disposable ? ['review', 'review', 'review', 'review', 'review'] : ['allow', 'allow', 'allow', 'allow', 'allow'],
      );
    }
  });

  it('a team onboarding: 20 colleagues in an hour on the office network, from its one address, on the company domain: none held (past 20 an hour, the block step of the address stands)', async () => {
    const h = await verdictHarness();
    const run = unique();
    for (let i = 0; i < 20; i++) {
      const res = await h.verdict({
        event_type: 'signup',
        external_user_id: `team_${run}_${i}`,
        email: `c${i}.${run}@${DOMAINS.corp}`,
        ip: '100.64.60.1',
        identity: { wifi: `office-${run}` },
      });
      expect(res.body.verdict, `colleague ${i}: ${JSON.stringify(reasons(res))}`).to.equal('allow');
      if (i > 5) expect(reason(res, 'velocity_ip_signups')!.detail).to.include({ group: 'team' });
    }
  });
});
