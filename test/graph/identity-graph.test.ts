// The identity graph on the verdict path, against the real Neo4j: linking, clusters, merges,
// hubs, cluster and account-takeover rules, isolation, concurrency, and repair after an outage.
import { expect } from 'chai';
import request from 'supertest';
import { bearer } from '../support/fixtures.js';
import { freePort, until } from '../support/processes.js';
import { aCheckout, aSignup, codes, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

const detailOf = (res: request.Response, code: string) =>
  (res.body.reasons as { code: string; detail?: Record<string, unknown> }[]).find((r) => r.code === code)?.detail;

async function deviceToken(h: Harness, components: Record<string, unknown>): Promise<string> {
  const res = await request(h.app).post('/v1/device').set(bearer(h.tenant.keys.pk_test)).send({ components });
  return res.body.device_token as string;
}

async function clusterOf(h: Harness, eventId: string, mode = 'test'): Promise<{ id: string; accounts: number } | undefined> {
  const { records } = await h.deps.graph.executeQuery(
    `MATCH (e:Event {tenantId: $t, mode: $m, id: $id})-[:BY|USED]->(n)-[:IN]->(c:Cluster)
     RETURN DISTINCT c.id AS id, c.accounts AS accounts`,
    { t: h.tenant.tenantId, m: mode, id: eventId },
  );
  return records[0]?.toObject() as { id: string; accounts: number } | undefined;
}

describe('identity graph', function () {
  this.timeout(60_000);
  let h: Harness;
  beforeEach(async () => {
    h = await verdictHarness();
  });

  it('puts two accounts sharing a phone in one cluster (identity_cluster, linked_accounts 2)', async () => {
    const first = await h.verdict(aSignup({ external_user_id: 'acct_1', identity: { phone: '+15550001' } }));
    expect(codes(first)).to.deep.equal([]);
    const second = await h.verdict(aSignup({ external_user_id: 'acct_2', identity: { phone: '+15550001' }, ip: '100.64.1.2' }));
    expect(second.body.verdict).to.equal('allow');
    expect(second.body.reasons).to.deep.include({
      code: 'identity_cluster',
      detail: { linked_accounts: 2, count: 2, threshold: 3, window_seconds: 86_400, via_kinds: 'phone' },
    });
    expect((await clusterOf(h, first.body.id))?.id).to.equal((await clusterOf(h, second.body.id))?.id);
  });

  it('reviews a signup at three linked accounts, and links emails by their normalised form', async () => {
    await h.verdict(aSignup({ external_user_id: 'a1', email: 'John.Smith+a@gmail.com' }));
    await h.verdict(aSignup({ external_user_id: 'a2', email: 'johnsmith+b@gmail.com', ip: '100.64.1.3' }));
    const third = await h.verdict(aSignup({ external_user_id: 'a3', email: 'j.o.h.n.smith@googlemail.com', ip: '100.64.1.4' }));
    expect(third.body.verdict).to.equal('review');
    expect(detailOf(third, 'identity_cluster')).to.deep.equal({
      linked_accounts: 3,
      count: 3,
      threshold: 3,
      window_seconds: 86_400,
      via_kinds: 'email',
      // One mailbox behind the three: the evidence that holds the burst (a household's three would not be).
      evidence: 'shared_email',
      rule: 'identity_cluster.min_accounts',
    });
  });

  it('merges two clusters joined by a later event, keeping both histories', async () => {
    // Cluster A started a trial; cluster B is another account.
    await h.verdict({ event_type: 'trial_start', external_user_id: 'A', email: 'a@shop-mail.com', ip: IPS.clean });
    const b = await h.verdict(aSignup({ external_user_id: 'B', identity: { wallet: 'w-1' } }));
    expect(codes(b)).to.deep.equal([]);
    // One event uses A's email and B's wallet: the clusters become one.
    const join = await h.verdict(
      aSignup({ external_user_id: 'C', email: 'a@shop-mail.com', identity: { wallet: 'w-1' }, ip: '100.64.1.5' }),
    );
    expect(detailOf(join, 'identity_cluster')).to.deep.equal({
      linked_accounts: 3,
      count: 3,
      threshold: 3,
      window_seconds: 86_400,
      via_kinds: 'email,wallet',
      evidence: 'shared_email',
      rule: 'identity_cluster.min_accounts',
    });
    // B's side now sees A's trial: a trial start anywhere in the merged cluster is blocked.
    const trial = await h.verdict({ event_type: 'trial_start', external_user_id: 'B', ip: '100.64.1.6' });
    expect(trial.body.verdict).to.equal('block');
    expect(codes(trial)).to.include('velocity_cluster_trials');
    const { records } = await h.deps.graph.executeQuery('MATCH (c:Cluster {tenantId: $t}) RETURN count(c) AS n', { t: h.tenant.tenantId });
    expect(records[0]?.get('n')).to.equal(1);
  });

  it('blocks a second trial start in one cluster, not the first', async () => {
    const first = await h.verdict({ event_type: 'trial_start', external_user_id: 'T1', identity: { phone: '+1555777' }, ip: IPS.clean });
    expect(first.body.verdict).to.equal('allow');
    const second = await h.verdict({
      event_type: 'trial_start',
      external_user_id: 'T2',
      identity: { phone: '+1555777' },
      ip: '100.64.2.2',
    });
    expect(second.body.verdict).to.equal('block');
    expect(detailOf(second, 'velocity_cluster_trials')).to.deep.equal({
      days_since_last_trial: 0,
      count: 0,
      threshold: 90,
      window_seconds: 7_776_000,
      rule: 'velocity_cluster_trials.window_seconds',
    });
  });

  it('never links accounts through a shared IP address', async () => {
    for (let i = 0; i < 6; i++) {
      const res = await h.verdict(aSignup({ external_user_id: `ip_${i}`, ip: '100.64.3.3' }));
      expect(codes(res)).not.to.include('identity_cluster');
    }
    const { records } = await h.deps.graph.executeQuery('MATCH (c:Cluster {tenantId: $t}) RETURN max(c.accounts) AS most', {
      t: h.tenant.tenantId,
    });
    expect(records[0]?.get('most')).to.equal(1);
  });

  it('stops linking through a hub identifier past the threshold and marks it', async () => {
    const hub = await verdictHarness({ GRAPH_HUB_THRESHOLD: '3' });
    const linked: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await hub.verdict(aSignup({ external_user_id: `hub_${i}`, identity: { phone: '0000000000' }, ip: `100.64.4.${i + 1}` }));
      linked.push(Number(detailOf(res, 'identity_cluster')?.linked_accounts ?? 1));
    }
    expect(linked).to.deep.equal([1, 2, 3, 1, 1, 1]);
    const { records } = await hub.deps.graph.executeQuery(
      'MATCH (i:Identifier {tenantId: $t, mode: "test", hub: true}) RETURN i.kind AS kind, i.value AS value, i.accounts AS accounts',
      { t: hub.tenant.tenantId },
    );
    expect(records.map((r) => r.toObject())).to.deep.equal([{ kind: 'phone', value: '0000000000', accounts: 6 }]);
  });

  it('reviews a login from a new device on an account with history, advising a challenge', async () => {
    const known = await deviceToken(h, { canvas: 'home-laptop' });
    await h.verdict(aSignup({ external_user_id: 'ato_1', device_token: known }));
    const sameDevice = await h.verdict({ event_type: 'login', external_user_id: 'ato_1', device_token: known });
    expect(sameDevice.body).to.include({ verdict: 'allow' });
    expect(sameDevice.body).not.to.have.property('recommended_action');
    const fresh = await h.verdict({
      event_type: 'login',
      external_user_id: 'ato_1',
      device_token: await deviceToken(h, { canvas: 'unknown-phone' }),
    });
    expect(fresh.body.verdict).to.equal('review');
    expect(fresh.body.recommended_action).to.equal('challenge');
    expect(codes(fresh)).to.deep.equal(['ato_new_device']);
    // A first login of a brand-new account has no history to protect.
    const first = await h.verdict({
      event_type: 'login',
      external_user_id: 'ato_new',
      device_token: await deviceToken(h, { canvas: 'x' }),
    });
    expect(codes(first)).to.deep.equal([]);
  });

  it('blocks the fourth distinct device logging into one account within an hour, advising a hold', async () => {
    const verdicts: string[] = [];
    let last: request.Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await h.verdict({
        event_type: 'login',
        external_user_id: 'burst',
        device_token: await deviceToken(h, { canvas: `dev-${i}` }),
      });
      verdicts.push(last.body.verdict);
    }
    expect(verdicts[3]).to.equal('block');
    expect(last!.body.recommended_action).to.equal('hold');
    expect(detailOf(last!, 'ato_account_device_burst')).to.deep.equal({
      devices: 4,
      count: 4,
      threshold: 3,
      window_seconds: 3600,
      rule: 'ato_account_device_burst.over',
    });
  });

  it('reviews a checkout when the cluster used more than 3 cards, or more than 2 card countries, in 24 h', async () => {
    const results: request.Response[] = [];
    for (const [i, country] of ['us', 'us', 'fr', 'de'].entries()) {
      results.push(
        await h.verdict(
          aCheckout({ external_user_id: 'carder', ip: `100.64.5.${i + 1}` }, { card_fingerprint: `c_${i}`, card_country: country }),
        ),
      );
    }
    expect(codes(results[2]!)).to.deep.equal([]);
    expect(codes(results[3]!)).to.include.members(['velocity_distinct_cards', 'velocity_card_countries']);
    expect(detailOf(results[3]!, 'velocity_distinct_cards')).to.deep.equal({
      count: 4,
      threshold: 3,
      window_seconds: 86_400,
      rule: 'velocity_distinct_cards.over',
    });
    expect(detailOf(results[3]!, 'velocity_card_countries')).to.deep.equal({
      count: 3,
      threshold: 2,
      window_seconds: 86_400,
      rule: 'velocity_card_countries.over',
    });
    expect(results[3]!.body.verdict).to.equal('review');
  });

  it('keeps tenants and modes apart: identical identifiers never share a cluster', async () => {
    const other = await verdictHarness();
    const body = aSignup({ external_user_id: 'same', identity: { phone: '+1555999' } });
    const a = await h.verdict(body);
    const b = await other.verdict(body);
    const live = await request(h.app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_live)).send(body);
    const second = await h.verdict(aSignup({ external_user_id: 'same2', identity: { phone: '+1555999' } }));
    expect(detailOf(second, 'identity_cluster')).to.deep.equal({
      linked_accounts: 2,
      count: 2,
      threshold: 3,
      window_seconds: 86_400,
      via_kinds: 'phone',
    });
    const ids = [
      (await clusterOf(h, a.body.id))?.id,
      (await clusterOf(other, b.body.id))?.id,
      (await clusterOf(h, live.body.id, 'live'))?.id,
    ];
    expect(new Set(ids).size).to.equal(3);
    expect(codes(b)).to.deep.equal([]);
    expect(codes(live)).to.deep.equal([]);
  });

  it('links an account attached later with PATCH', async () => {
    const anonymous = await h.verdict(aSignup({ identity: { phone: '+1555321' } }));
    await h.verdict(aSignup({ external_user_id: 'known', identity: { phone: '+1555321' }, ip: '100.64.6.1' }));
    await request(h.app)
      .patch(`/v1/events/${anonymous.body.id}`)
      .set(bearer(h.tenant.keys.sk_test))
      .send({ external_user_id: 'late' })
      .expect(200);
    await h.graphSettled();
    expect((await clusterOf(h, anonymous.body.id))?.accounts).to.equal(2);
  });

  // The shared `group` value, used by all 50, is a hub (a caller-supplied value over 10 accounts):
  // it links nothing, so however the verdicts interleave the accounts end in the five wallets'
  // clusters of 10 each.
  it('turns 50 concurrent verdicts into the clusters their evidence makes, whatever their order', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.verdict(
          aSignup({ external_user_id: `crowd_${i}`, identity: { wallet: `shared-w${i % 5}`, group: 'g1' }, ip: `100.64.7.${i + 1}` }),
        ),
      ),
    );
    expect(responses.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
    await until(
      'five clusters of 10 accounts, one per wallet',
      async () => {
        const { records } = await h.deps.graph.executeQuery(
          'MATCH (c:Cluster {tenantId: $t, mode: "test"}) WHERE c.accounts > 0 RETURN c.accounts AS accounts ORDER BY accounts',
          { t: h.tenant.tenantId },
        );
        return JSON.stringify(records.map((r) => r.get('accounts'))) === '[10,10,10,10,10]' ? true : undefined;
      },
      45_000,
    );
  });

  it('answers 200 with partial_enrichment while Neo4j is unreachable, and the graph writer links the event later', async () => {
    const down = await verdictHarness({ NEO4J_URI: `bolt://127.0.0.1:${await freePort()}` });
    const res = await down.verdict(aSignup({ external_user_id: 'outage', identity: { phone: '+1555000111' } }));
    expect(res.status).to.equal(200);
    expect(res.body.reasons).to.deep.include({ code: 'partial_enrichment', detail: { sources: 'graph' } });
    // The link was written with the event; this process's graph writer reaches the real server.
    const { records } = await h.deps.graph.executeQuery(
      'MATCH (:Event {tenantId: $t, mode: "test", id: $id})-[:BY]->(a:Account)-[:IN]->(c:Cluster) RETURN a.externalId AS a',
      { t: down.tenant.tenantId, id: res.body.id },
    );
    expect(records.map((r) => r.get('a'))).to.deep.equal(['outage']);
  });
});
