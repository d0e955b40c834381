// `doorman graph rebuild`: the scope's graph is emptied and rebuilt from Postgres alone
// (events, PATCHed accounts, feedback, review resolutions) into the same clusters, with the same
// facts, the same hubs and the same identifier counts.
import { expect } from 'chai';
import request from 'supertest';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { doorman } from '../support/cli-runner.js';
import { bearer } from '../support/fixtures.js';
import { aCheckout, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

// Every cluster as its sorted members and its facts (cluster ids are new after a rebuild), and
// every identifier's counts.
async function snapshot(h: Harness) {
  const t = { t: h.tenant.tenantId };
  const clusters = (
    await h.deps.graph.executeQuery(
      `MATCH (m)-[:IN]->(c:Cluster {tenantId: $t, mode: 'test'})
     WITH c, collect(CASE WHEN m:Account THEN 'account:' + m.externalId ELSE m.kind + ':' + m.value END) AS members
     RETURN members, c.accounts AS accounts, c.size AS size, c.confirmedAbuse AS abuse, c.falsePositive AS fp, c.chargebacks AS chargebacks,
            c.suppressed AS suppressed, c.lastTrialStartAt AS trial, c.convertedAt AS converted, c.cardValue AS cards`,
      t,
    )
  ).records
    .map((r) => ({ ...r.toObject(), members: [...r.get('members')].sort(), suppressed: [...r.get('suppressed')].sort() }))
    .sort((a, b) => (a.members[0] < b.members[0] ? -1 : 1));
  const identifiers = (
    await h.deps.graph.executeQuery(
      `MATCH (i:Identifier {tenantId: $t, mode: 'test'}) RETURN i.kind + ':' + i.value AS id, i.accounts AS accounts, i.anonymous AS anonymous, i.hub AS hub ORDER BY id`,
      t,
    )
  ).records.map((r) => r.toObject());
  const events = (
    await h.deps.graph.executeQuery(
      `MATCH (e:Event {tenantId: $t, mode: 'test'}) RETURN e.id AS id, e.counted AS counted, COUNT { (e)--() } AS links ORDER BY id`,
      t,
    )
  ).records.map((r) => r.toObject());
  return { clusters, identifiers, events };
}

describe('doorman graph rebuild', function () {
  this.timeout(120_000);

  it('replays the stored events, accounts, feedback and resolutions into an empty graph with the same clusters', async () => {
    const h = await verdictHarness({ GRAPH_HUB_THRESHOLD: '3' });
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const v = (body: object) => h.verdict(body);
    await v({
      event_type: 'signup',
      external_user_id: 'ann',
      email: 'ann@shop-mail.com',
      ip: '100.64.70.1',
      identity: { phone: '+15557000001' },
    });
    await v({ event_type: 'trial_start', external_user_id: 'ann', ip: '100.64.70.1' });
    await v({ event_type: 'signup', external_user_id: 'bob', ip: '100.64.70.2', identity: { phone: '+15557000001' } });
    await v({ event_type: 'trial_convert', external_user_id: 'bob' });
    await v(aCheckout({ external_user_id: 'cat', ip: '100.64.70.3' }, { card_fingerprint: 'card_rb_1', card_country: 'FR' }));
    await v(aCheckout({ external_user_id: 'dan', ip: '100.64.70.4' }, { card_fingerprint: 'card_rb_1', card_country: 'DE' }));
    const anonymous = await v({ event_type: 'signup', email: 'eve@shop-mail.com', ip: '100.64.70.5', identity: { wallet: 'w-eve' } });
    await request(h.app)
      .patch(`/v1/events/${anonymous.body.id}`)
      .set(bearer(h.tenant.keys.sk_test))
      .send({ external_user_id: 'eve' })
      .expect(200);
    for (let i = 0; i < 5; i++)
      await v({
        event_type: 'signup',
        ip: `100.64.71.${i + 1}`,
        identity: { phone: '0000000000' },
        ...(i % 2 ? { external_user_id: `hub${i}` } : {}),
      });
    const tor = await v({ event_type: 'signup', external_user_id: 'fay', ip: IPS.tor, identity: { wallet: 'w-fay' } });
    expect(tor.body.verdict).to.equal('review');
    await resolveReview(h.deps, scope, { eventId: tor.body.id, resolution: 'approved', resolvedBy: 'test' });
    const feedback = (kind: string, value: string, outcome: string) =>
      request(h.app).post('/v1/feedback').set(bearer(h.tenant.keys.sk_test)).send({ subject: { kind, value }, outcome }).expect(200);
    await feedback('external_user_id', 'cat', 'chargeback');
    await feedback('email', 'ann@shop-mail.com', 'confirmed_abuse');
    await h.graphSettled();
    const before = await snapshot(h);
    expect(before.clusters.length).to.be.at.least(4);
    expect(before.identifiers.find((i) => i.id === 'phone:0000000000')?.hub).to.equal(true);

    // With the servers' configuration (the hub threshold is part of each replayed link).
    const cli = await doorman(['graph', 'rebuild', '--tenant', scope.tenantId, '--mode', 'test', '--json'], { GRAPH_HUB_THRESHOLD: '3' });
    expect(cli.code, cli.stderr).to.equal(0);
    expect(JSON.parse(cli.stdout)).to.deep.equal({ ok: true, events: 13, marks: 3 });
    await h.graphSettled();
    const after = await snapshot(h);
    expect(after).to.deep.equal(before);
  });
});
