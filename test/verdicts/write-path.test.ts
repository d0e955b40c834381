// The verdict's write path: decide on a read, commit once. Tested against the real stores: a
// killed process, a failed write, concurrent merges with marks, feedback right after a verdict,
// parallel PATCHes and feedback, velocity under parallelism, the hub guard through anonymous
// events, the input bounds, the warm-up gate.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { bearer } from '../support/fixtures.js';
import { startServer, until } from '../support/processes.js';
import { aCheckout, aSignup, codes, DOMAINS, standIns, verdictHarness, type Harness } from '../support/verdict-harness.js';

const detailOf = (res: request.Response, code: string) =>
  (res.body.reasons as { code: string; detail?: Record<string, unknown> }[]).find((r) => r.code === code)?.detail;

describe('the verdict write path', function () {
  this.timeout(60_000);
  let h: Harness;
  beforeEach(async () => {
    h = await verdictHarness();
  });
  const raw = (body: object, key?: string) => {
    const r = request(h.app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test));
    return (key ? r.set('Idempotency-Key', key) : r).send(body);
  };
  const graphCount = async (cypher: string, params: Record<string, unknown> = {}) => {
    const { records } = await h.deps.graph.executeQuery(cypher, { t: h.tenant.tenantId, ...params });
    return Number(records[0]?.get('n'));
  };

  it('answers a same-key retry at once after the process holding the first attempt was killed', async () => {
    const { dns } = await standIns();
    // The first attempt waits on a DNS answer held for 2 s; its process is killed meanwhile.
    const server = await startServer({ DNS_SERVERS: dns.server, SIGNAL_DEADLINE_MS: '5000', DNS_TIMEOUT_MS: '5000' });
    const body = aSignup({ email: `killed@${DOMAINS.slowDns}` });
    const first = fetch(`http://127.0.0.1:${server.port}/v1/verdict`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { ...bearer(h.tenant.keys.sk_test), 'Content-Type': 'application/json', 'Idempotency-Key': 'killed-1' },
    }).catch((err: unknown) => err);
    await until('the first attempt to be in flight', async () => (dns.queryCount(DOMAINS.slowDns) > 0 ? true : undefined));
    await server.kill();
    expect(await first).to.be.instanceOf(Error);
    const retry = await raw(body, 'killed-1');
    expect(retry.status).to.equal(200);
    const { rows } = await h.deps.db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [h.tenant.tenantId]);
    expect(rows[0].n).to.equal(1);
  });

  it('leaves no trace in any store when the Postgres write fails, so the retry is judged afresh', async () => {
    const trigger = `refuse_${h.tenant.tenantId}`;
    await h.deps.db.query(`CREATE OR REPLACE FUNCTION doorman_test_refuse_event() RETURNS trigger LANGUAGE plpgsql
      AS $$ BEGIN RAISE EXCEPTION 'fault injected by a test'; END $$`);
    await h.deps.db.query(`CREATE TRIGGER ${trigger} BEFORE INSERT ON events FOR EACH ROW
      WHEN (NEW.tenant_id = '${h.tenant.tenantId}') EXECUTE FUNCTION doorman_test_refuse_event()`);
    const trial = { event_type: 'trial_start', external_user_id: 'ghost', identity: { phone: '+1555404' }, ip: '100.64.40.1' };
    const signup = aSignup({ ip: '100.64.40.2' });
    try {
      expect((await raw(trial, 'trial-1')).status).to.equal(500);
      expect((await raw(signup)).status).to.equal(500);
    } finally {
      await h.deps.db.query(`DROP TRIGGER ${trigger} ON events`);
    }
    await h.graphSettled();
    expect(await graphCount('MATCH (n {tenantId: $t}) RETURN count(n) AS n')).to.equal(0);
    const { rows } = await h.deps.db.query('SELECT count(*)::int AS n FROM graph_outbox WHERE tenant_id = $1', [h.tenant.tenantId]);
    expect(rows[0].n).to.equal(0);
    // The retried trial start is not blocked by a ghost of itself, and the signup was not counted.
    const retried = await h.verdict(trial, { 'Idempotency-Key': 'trial-1' });
    expect(retried.status).to.equal(200);
    expect(retried.body.verdict).to.equal('allow');
    const again = await h.verdict(aSignup({ ip: '100.64.40.2' }));
    const stored = await h.deps.db.query('SELECT signals FROM events WHERE id = $1', [again.body.id]);
    expect(stored.rows[0].signals.velocity.ipSignups).to.equal(1);
  });

  it('loses no mark when 20 concurrent verdicts merge the clusters feedback is marking, and leaves every member in one cluster', async () => {
    for (let i = 0; i < 20; i++)
      await h.verdict(aSignup({ external_user_id: `m${i}`, identity: { wallet: `w${i}`, phone: `p${i}` }, ip: `100.64.41.${i + 1}` }));
    const feedback = (value: string, outcome: string) =>
      request(h.app)
        .post('/v1/feedback')
        .set(bearer(h.tenant.keys.sk_test))
        .send({ subject: { kind: 'external_user_id', value }, outcome });
    const results = await Promise.all([
      // Join i links cluster i (its wallet) and cluster i + 1 (its phone): all 20 become one.
      ...Array.from({ length: 20 }, (_, i) =>
        raw(aSignup({ external_user_id: `join${i}`, identity: { wallet: `w${i}`, phone: `p${(i + 1) % 20}` }, ip: `100.64.42.${i + 1}` })),
      ),
      feedback('m0', 'confirmed_abuse'),
      feedback('m7', 'chargeback'),
      feedback('m13', 'chargeback'),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(Array(23).fill(200));
    await h.graphSettled();
    const { records } = await h.deps.graph.executeQuery(
      'MATCH (c:Cluster {tenantId: $t, mode: "test"}) RETURN c.accounts AS accounts, c.confirmedAbuse AS abuse, c.chargebacks AS chargebacks',
      { t: h.tenant.tenantId },
    );
    expect(records.map((r) => r.toObject())).to.deep.equal([{ accounts: 40, abuse: true, chargebacks: 2 }]);
    expect(
      await graphCount(
        'MATCH (m {tenantId: $t}) WHERE m:Account OR m:Identifier WITH m, COUNT { (m)-[:IN]->() } AS k WHERE k <> 1 RETURN count(m) AS n',
      ),
    ).to.equal(0);
    const next = await h.verdict(aSignup({ external_user_id: 'm3', ip: '100.64.43.1' }));
    expect(codes(next)).to.include('cluster_confirmed_abuse');
  });

  it("applies feedback sent right after a verdict, once the verdict's link has landed", async () => {
    const first = await raw(aSignup({ external_user_id: 'quick', email: 'quick.one@gmail.com' }));
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'event_id', value: first.body.id }, outcome: 'confirmed_abuse' })
      .expect(200);
    await h.graphSettled();
    const linked = await h.verdict(aSignup({ external_user_id: 'quick2', email: 'quickone@gmail.com', ip: '100.64.44.1' }));
    expect(linked.body.verdict).to.equal('block');
    expect(codes(linked)).to.include('cluster_confirmed_abuse');
  });

  it('answers 200 to eight identical PATCHes at once, and one winner among different values', async () => {
    const ev = await h.verdict(aSignup({ identity: { phone: '+1555888000' } }));
    const patch = (id: string, value: string) =>
      request(h.app).patch(`/v1/events/${id}`).set(bearer(h.tenant.keys.sk_test)).send({ external_user_id: value });
    const same = await Promise.all(Array.from({ length: 8 }, () => patch(ev.body.id, 'late_user')));
    expect(same.map((r) => r.status)).to.deep.equal(Array(8).fill(200));
    const other = await h.verdict(aSignup({ identity: { phone: '+1555888001' }, ip: '100.64.45.1' }));
    const race = await Promise.all(Array.from({ length: 8 }, (_, i) => patch(other.body.id, `candidate_${i}`)));
    expect(race.filter((r) => r.status === 200)).to.have.length(1);
    expect(race.filter((r) => r.status === 409)).to.have.length(7);
    await h.graphSettled();
    // The account joined its event's cluster once, and the event's own contribution counted once.
    const { records } = await h.deps.graph.executeQuery(
      'MATCH (:Account {tenantId: $t, mode: "test", externalId: "late_user"})-[:IN]->(c:Cluster) RETURN c.accounts AS accounts',
      { t: h.tenant.tenantId },
    );
    expect(records.map((r) => r.get('accounts'))).to.deep.equal([1]);
  });

  it('counts eight identical chargebacks sent at once as one', async () => {
    const ev = await h.verdict(aCheckout({ external_user_id: 'disputed' }, { card_fingerprint: 'card_cb8' }));
    const posts = await Promise.all(
      Array.from({ length: 8 }, () =>
        request(h.app)
          .post('/v1/feedback')
          .set(bearer(h.tenant.keys.sk_test))
          .send({ subject: { kind: 'event_id', value: ev.body.id }, outcome: 'chargeback' }),
      ),
    );
    expect(posts.map((r) => r.status)).to.deep.equal(Array(8).fill(200));
    await h.graphSettled();
    const next = await h.verdict(aCheckout({ external_user_id: 'disputed', ip: '100.64.46.1' }, { card_fingerprint: 'card_cb8' }));
    expect(detailOf(next, 'cluster_chargeback')).to.deep.equal({ chargebacks: 1 });
  });

  it('fires velocity_ip_signups exactly as the policy says for 30 parallel signups from one ip', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => raw(aSignup({ ip: '100.64.47.1' }))));
    expect(results.map((r) => r.status)).to.deep.equal(Array(30).fill(200));
    const counts = results
      .map((r) => Number(detailOf(r, 'velocity_ip_signups')?.count ?? 0))
      .filter((n) => n > 0)
      .sort((a, b) => a - b);
    expect(counts).to.deep.equal(Array.from({ length: 25 }, (_, i) => i + 6));
    const verdicts = results.map((r) => r.body.verdict as string);
    expect(verdicts.filter((v) => v === 'allow')).to.have.length(5);
    expect(verdicts.filter((v) => v === 'review')).to.have.length(15);
    expect(verdicts.filter((v) => v === 'block')).to.have.length(10);
  });

  it('makes an identifier a hub when anonymous events alone pass the threshold', async () => {
    const hub = await verdictHarness({ GRAPH_HUB_THRESHOLD: '3' });
    for (let i = 0; i < 5; i++) await hub.verdict(aSignup({ identity: { phone: '0000000000' }, ip: `100.64.48.${i + 1}` }));
    const { records } = await hub.deps.graph.executeQuery(
      'MATCH (i:Identifier {tenantId: $t, mode: "test", kind: "phone"}) RETURN i.hub AS hub, i.anonymous AS anonymous',
      { t: hub.tenant.tenantId },
    );
    expect(records.map((r) => r.toObject())).to.deep.equal([{ hub: true, anonymous: 5 }]);
    // Two accounts using the placeholder phone are not linked through it.
    await hub.verdict(aSignup({ external_user_id: 'x1', identity: { phone: '0000000000' }, ip: '100.64.48.20' }));
    const x2 = await hub.verdict(aSignup({ external_user_id: 'x2', identity: { phone: '0000000000' }, ip: '100.64.48.21' }));
    expect(codes(x2)).not.to.include('identity_cluster');
  });

  it('counts card fingerprints that contain a "|" as the cards they are', async () => {
    const results = [];
    for (const [i, card] of ['c|1', 'c|2', 'c', 'c|1|us'].entries()) {
      results.push(
        await h.verdict(
          aCheckout({ external_user_id: 'piped', ip: `100.64.49.${i + 1}` }, { card_fingerprint: card, card_country: i < 3 ? 'us' : 'fr' }),
        ),
      );
    }
    expect(detailOf(results[3]!, 'velocity_distinct_cards')).to.include({ count: 4, threshold: 3 });
    expect(codes(results[3]!)).not.to.include('velocity_card_countries');
  });

  it('rejects values past the input bounds with 400 naming the field, and accepts values at the bound', async () => {
    const identity = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
    const cases: [object, string][] = [
      [aSignup({ identity: identity(21) }), '/identity'],
      [aCheckout({}, { card_fingerprint: 'x'.repeat(257) }), '/payment/card_fingerprint'],
      [aSignup({ user_agent: 'u'.repeat(1025) }), '/user_agent'],
      [aSignup({ device_token: 't'.repeat(4097) }), '/device_token'],
    ];
    for (const [body, path] of cases) {
      const res = await raw(body);
      expect(res.status, path).to.equal(400);
      expect(
        res.body.details.issues.map((i: { path: string }) => i.path),
        path,
      ).to.include(path);
    }
    for (const body of [
      aSignup({ identity: identity(20) }),
      aCheckout({}, { card_fingerprint: 'x'.repeat(256) }),
      aSignup({ user_agent: 'u'.repeat(1024) }),
      aSignup({ device_token: 't'.repeat(4096) }),
    ]) {
      expect((await raw(body)).status).to.equal(200);
    }
  });

  it('says where the time went in a Server-Timing header', async () => {
    const res = await raw(aSignup({ external_user_id: 'timed', identity: { phone: '+1555999111' } }));
    const names = String(res.headers['server-timing'])
      .split(', ')
      .map((entry) => entry.split(';')[0]);
    expect(names).to.include.members(['auth', 'email', 'lists', 'velocity', 'graph', 'write']);
  });

  it('holds requests while warming up and answers /health 503 warming until then', async () => {
    let finish!: () => void;
    const warming = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let warm = false;
    const app = createApp({ ...h.deps, warmState: () => (warm ? 'warm' : 'warming'), warmup: () => warming });
    const health = await request(app).get('/health');
    expect(health.status).to.equal(503);
    expect(health.body.status).to.equal('warming');
    let answered = false;
    const held = request(app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send(aSignup())
      .then((r) => {
        answered = true;
        return r;
      });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).to.equal(false);
    warm = true;
    finish();
    expect((await held).status).to.equal(200);
    expect((await request(app).get('/health')).status).to.equal(200);
  });

  it('stores the graph facts read for a brand-new account, with no source missing', async () => {
    const res = await raw(aSignup({ external_user_id: 'facts', identity: { phone: '+1555222333' } }));
    const { rows } = await h.deps.db.query('SELECT signals FROM events WHERE id = $1', [res.body.id]);
    expect(rows[0].signals.graph).to.include({ linkedAccounts: 1, accountHasHistory: false });
    expect(rows[0].signals.missing).to.deep.equal([]);
  });
});
