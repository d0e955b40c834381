// Against the real stores: clusters follow the evidence whatever order events arrive in
// (hub splits, link expiry, exclusions, kinds that do not link), marks follow their subjects
// through a split and can be retracted, cluster decisions say why (via, marked_at, via_kinds), and a
// verdict sees every link committed before it began, whatever the writer's lag.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import type { Deps } from '../../src/deps.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { listFeedback } from '../../src/feedback/feedback-store.js';
import { retractFeedback } from '../../src/feedback/retract-feedback.js';
import { explainCluster } from '../../src/graph/explain-cluster.js';
import { erasePerson } from '../../src/lifecycle/erase-person.js';
import { expiredScopes, expireLinks } from '../../src/graph/apply-graph-ops.js';
import { insertGraphOps, pendingLinksJoining } from '../../src/graph/graph-outbox-store.js';
import { graphLinkOf, linkKeys, readClusterFacts } from '../../src/graph/identity-graph.js';
import { reclusterGraph } from '../../src/lifecycle/recluster-graph.js';
import type { PolicyDocument } from '../../src/policies/documents/policy-document.js';
import { verifyGraph } from '../../src/lifecycle/verify-graph.js';
import { aDocument } from '../policies/policy-builders.js';
import { aTenant, bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup, graphSettled, standIns, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { noteGraphScope } from '../support/graph-scopes.js';

type Reason = { code: string; detail?: Record<string, unknown> };
const reason = (res: request.Response, code: string) => (res.body.reasons as Reason[]).find((r) => r.code === code);
const login = (account: string, extra: Record<string, unknown> = {}) => ({
  event_type: 'login',
  external_user_id: account,
  ip: '100.64.20.1',
  ...extra,
});

async function feedback(h: Harness, subject: { kind: string; value: string }, outcome = 'confirmed_abuse'): Promise<void> {
  await request(h.app).post('/v1/feedback').set(bearer(h.tenant.keys.sk_test)).send({ subject, outcome }).expect(200);
  await h.graphSettled();
}

// The scope's clusters as sets of external ids (accounts only), sorted: comparable across tenants.
async function partition(deps: Deps, tenantId: string): Promise<string[][]> {
  const { records } = await deps.graph.executeQuery(
    `MATCH (a:Account {tenantId: $t, mode: 'test'})-[:IN]->(c:Cluster) WITH c, a.externalId AS x ORDER BY x
     WITH c, collect(x) AS accounts RETURN accounts`,
    { t: tenantId },
  );
  return records.map((r) => r.get('accounts') as string[]).sort((a, b) => (a.join() < b.join() ? -1 : 1));
}

async function withPolicy(h: Harness, graph: PolicyDocument['graph']): Promise<void> {
  const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
  const version = await publishPolicy(h.deps, scope, { document: aDocument({}, { graph }) });
  await until('the published policy in force', async () => {
    await h.deps.policies.refresh(scope);
    return h.deps.policies.forScope(scope).version === version ? true : undefined;
  });
}

describe('clusters follow the evidence', function () {
  this.timeout(90_000);

  it('links through an identity kind by default (a review: only verified identifiers block), and not through one the tenant turns off', async () => {
    for (const links of [true, false]) {
      const h = await verdictHarness();
      if (!links) await withPolicy(h, { kinds: { wifi: { links: false } } });
      for (let i = 0; i < 10; i++)
        await h.verdict(aSignup({ external_user_id: `office_${i}`, identity: { wifi: 'office-7' }, ip: `100.64.21.${i + 1}` }));
      await feedback(h, { kind: 'external_user_id', value: 'office_0' });
      const res = await h.verdict(login('office_5'));
      if (links) {
        expect(res.body.verdict).to.equal('review');
        expect(reason(res, 'cluster_confirmed_abuse')?.detail).to.include({ via: 'wifi', rule: 'cluster_confirmed_abuse.verified_only' });
      } else {
        expect(reason(res, 'cluster_confirmed_abuse')).to.equal(undefined);
        expect((await partition(h.deps, h.tenant.tenantId)).every((c) => c.length === 1)).to.equal(true);
      }
    }
  });

  it('splits a cluster when its identifier becomes a hub, after a mark or before it: the same clusters either way', async () => {
    const results: { partition: string[][]; early: request.Response; late: request.Response }[] = [];
    for (const markFirst of [true, false]) {
      const h = await verdictHarness({ GRAPH_HUB_THRESHOLD: '5' });
      // Three accounts share a wifi value; two of them also share a phone.
      await h.verdict(aSignup({ external_user_id: 'a', identity: { wifi: 'cafe', phone: '+1555300' } }));
      await h.verdict(aSignup({ external_user_id: 'b', identity: { wifi: 'cafe', phone: '+1555300' }, ip: '100.64.22.2' }));
      await h.verdict(aSignup({ external_user_id: 'c', identity: { wifi: 'cafe' }, ip: '100.64.22.3' }));
      if (markFirst) await feedback(h, { kind: 'external_user_id', value: 'a' });
      // Three more: the wifi value is now used by six accounts, over the threshold of five.
      for (const x of ['d', 'e', 'f']) await h.verdict(aSignup({ external_user_id: x, identity: { wifi: 'cafe' }, ip: '100.64.22.9' }));
      if (!markFirst) await feedback(h, { kind: 'external_user_id', value: 'a' });
      results.push({
        partition: await partition(h.deps, h.tenant.tenantId),
        early: await h.verdict(login('c')),
        late: await h.verdict(login('b')),
      });
    }
    expect(results[0]!.partition).to.deep.equal([['a', 'b'], ['c'], ['d'], ['e'], ['f']]);
    expect(results[1]!.partition).to.deep.equal(results[0]!.partition);
    for (const r of results) {
      // c joined before the hub, with no other tie to a: cleared, as an account joining after it.
      expect(reason(r.early, 'cluster_confirmed_abuse')).to.equal(undefined);
      expect(reason(r.early, 'identity_cluster')).to.equal(undefined);
      // b shares a phone with the marked account: still convicted, and told why.
      expect(reason(r.late, 'cluster_confirmed_abuse')?.detail).to.include({ via: 'phone' });
    }
  });

  it('keeps each mark with its subject through a split', async () => {
    const h = await verdictHarness({ GRAPH_HUB_THRESHOLD: '3' });
    // a -phone- b -wifi- c -card- d: one cluster, then the wifi value becomes a hub.
    await h.verdict(aSignup({ external_user_id: 'a', identity: { phone: '+1555400' } }));
    await h.verdict(aSignup({ external_user_id: 'b', identity: { phone: '+1555400', wifi: 'w-400' }, ip: '100.64.23.2' }));
    await h.verdict(aSignup({ external_user_id: 'c', identity: { wifi: 'w-400', wallet: 'k-400' }, ip: '100.64.23.3' }));
    await h.verdict(aSignup({ external_user_id: 'd', identity: { wallet: 'k-400' }, ip: '100.64.23.4' }));
    await feedback(h, { kind: 'external_user_id', value: 'a' });
    await feedback(h, { kind: 'external_user_id', value: 'd' }, 'chargeback');
    expect(reason(await h.verdict(login('d')), 'cluster_confirmed_abuse')?.detail).to.include({ via: 'wallet,wifi,phone' });
    for (const x of ['x1', 'x2']) await h.verdict(aSignup({ external_user_id: x, identity: { wifi: 'w-400' }, ip: '100.64.23.9' }));
    expect(await partition(h.deps, h.tenant.tenantId)).to.deep.equal([['a', 'b'], ['c', 'd'], ['x1'], ['x2']]);
    const { records } = await h.deps.graph.executeQuery(
      `MATCH (a:Account {tenantId: $t, mode: 'test'})-[:IN]->(c:Cluster) WHERE a.externalId IN ['a', 'd']
       RETURN a.externalId AS x, c.confirmedAbuse AS abuse, c.chargebacks AS chargebacks ORDER BY x`,
      { t: h.tenant.tenantId },
    );
    expect(records.map((r) => r.toObject())).to.deep.equal([
      { x: 'a', abuse: true, chargebacks: 0 },
      { x: 'd', abuse: false, chargebacks: 1 },
    ]);
    expect(reason(await h.verdict(login('c')), 'cluster_confirmed_abuse')).to.equal(undefined);
  });

  it('splits a cluster when the person who held it together is erased', async () => {
    const h = await verdictHarness();
    await h.verdict(aSignup({ external_user_id: 'left', identity: { phone: '+1555450' } }));
    await h.verdict(aSignup({ external_user_id: 'middle', identity: { phone: '+1555450', wallet: 'w-450' }, ip: '100.64.23.20' }));
    await h.verdict(aSignup({ external_user_id: 'right', identity: { wallet: 'w-450' }, ip: '100.64.23.21' }));
    await feedback(h, { kind: 'external_user_id', value: 'right' });
    expect(await partition(h.deps, h.tenant.tenantId)).to.deep.equal([['left', 'middle', 'right']]);
    await erasePerson(
      h.deps,
      { tenantId: h.tenant.tenantId, mode: 'test' },
      { kind: 'external_user_id', value: 'middle' },
      { requestedBy: 'test' },
    );
    await h.graphSettled();
    expect(await partition(h.deps, h.tenant.tenantId)).to.deep.equal([['left'], ['right']]);
    // The mark stays with its subject's part.
    expect(reason(await h.verdict(login('left')), 'cluster_confirmed_abuse')).to.equal(undefined);
    expect(reason(await h.verdict(login('right')), 'cluster_confirmed_abuse')?.detail).to.include({ via: '' });
  });

  it('says why: via a card, a device, two hops, or the account itself, with the time of the mark', async () => {
    const h = await verdictHarness();
    const device = (
      await request(h.app)
        .post('/v1/device')
        .set(bearer(h.tenant.keys.pk_test))
        .send({ components: { canvas: 'shared-tablet' } })
    ).body.device_token as string;
    const checkout = (account: string, card: string) => ({
      event_type: 'checkout_attempt',
      external_user_id: account,
      ip: '100.64.24.1',
      payment: { card_fingerprint: card, amount: 5000, currency: 'usd' },
    });
    await h.verdict(checkout('m', 'card_m'));
    await h.verdict(checkout('n', 'card_m'));
    await h.verdict(aSignup({ external_user_id: 'o', identity: { phone: '+1555500' }, device_token: device }));
    await h.verdict(aSignup({ external_user_id: 'p', device_token: device, ip: '100.64.24.2' }));
    await h.verdict(aSignup({ external_user_id: 'q', identity: { phone: '+1555500' }, ip: '100.64.24.3' }));
    await h.verdict(login('n', { identity: { phone: '+1555500' } }));
    const before = Date.now();
    await feedback(h, { kind: 'external_user_id', value: 'm' });
    const card = reason(await h.verdict(login('n')), 'cluster_confirmed_abuse')?.detail;
    expect(card).to.include({ via: 'card' });
    expect(Date.parse(String(card?.marked_at))).to.be.within(before - 1000, Date.now());
    expect(reason(await h.verdict(login('m')), 'cluster_confirmed_abuse')?.detail).to.include({ via: '' });
    expect(reason(await h.verdict(login('o')), 'cluster_confirmed_abuse')?.detail).to.include({ via: 'phone,card' });
    expect(reason(await h.verdict(login('p')), 'cluster_confirmed_abuse')?.detail).to.include({ via: 'device,phone,card' });
    const event = await h.verdict(login('p'));
    const explained = await explainCluster(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, { eventId: event.body.id });
    expect(explained.cluster?.accounts).to.equal(5);
    expect(explained.marks).to.have.length(1);
    expect(explained.marks[0]).to.deep.include({ outcome: 'confirmed_abuse', subject_kind: 'account', via: ['device', 'phone', 'card'] });
    expect(explained.marks[0]!.feedback_id).to.match(/^fbk_/);
  });

  it('takes a mark back: the retraction goes through the writer, is audited, and later verdicts lose the reason', async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    await h.verdict(aSignup({ external_user_id: 'r1', email: 'same.person@shop-mail.com' }));
    await h.verdict(aSignup({ external_user_id: 'r2', email: 'same.person@shop-mail.com', ip: '100.64.25.2' }));
    await feedback(h, { kind: 'external_user_id', value: 'r1' });
    expect((await h.verdict(login('r2'))).body.verdict).to.equal('block');
    const [listed] = await listFeedback(h.deps.db, scope, { externalUserId: 'r1' });
    expect(listed).to.deep.include({ outcome: 'confirmed_abuse', subject: { kind: 'external_user_id', value: 'r1' }, retracted_at: null });
    await retractFeedback(h.deps, scope, {
      feedbackId: listed!.feedback_id,
      note: 'sent by mistake',
      actor: { ...scope, analystId: null, analystEmail: 'operator (test)' },
    });
    await h.graphSettled();
    const after = await h.verdict(login('r2'));
    expect(reason(after, 'cluster_confirmed_abuse')).to.equal(undefined);
    expect(after.body.verdict).to.equal('allow');
    const [retracted] = await listFeedback(h.deps.db, scope, { externalUserId: 'r1' });
    expect(retracted!.retracted_at).to.be.a('string');
    const { rows } = await h.deps.db.query(`SELECT action, subject, detail FROM console_audit WHERE tenant_id = $1`, [scope.tenantId]);
    expect(rows).to.deep.equal([
      {
        action: 'feedback.retract',
        subject: listed!.feedback_id,
        detail: { outcome: 'confirmed_abuse', subject: 'external_user_id:r1', note: 'sent by mistake' },
      },
    ]);
    // Reported again, it is reinstated.
    await feedback(h, { kind: 'external_user_id', value: 'r1' });
    expect((await h.verdict(login('r2'))).body.verdict).to.equal('block');
  });

  it('sees every link committed before the verdict began: ten signups sent back to back', async () => {
    const h = await verdictHarness();
    const linked: number[] = [];
    for (let i = 0; i < 10; i++) {
      // Sent as soon as the previous answered, without waiting for the graph writer.
      const res = await request(h.app)
        .post('/v1/verdict')
        .set(bearer(h.tenant.keys.sk_test))
        .send(aSignup({ external_user_id: `burst_${i}`, identity: { phone: '+1555700' }, ip: `100.64.26.${i + 1}` }))
        .expect(200);
      linked.push(Number(reason(res, 'identity_cluster')?.detail?.linked_accounts ?? 1));
    }
    expect(linked).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await h.graphSettled();
    expect(await partition(h.deps, h.tenant.tenantId)).to.deep.equal([Array.from({ length: 10 }, (_, i) => `burst_${i}`).sort()]);
  });

  it("folds links no writer has applied yet into the read (they wait uncommitted here, out of every writer's reach)", async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    // One account already in the graph shares the phone.
    await h.verdict(aSignup({ external_user_id: 'applied', identity: { phone: '+1555750' } }));
    const client = await h.deps.db.connect();
    try {
      await client.query('BEGIN');
      const seen: number[] = [];
      for (let i = 0; i < 5; i++) {
        const link = graphLinkOf(
          scope,
          {
            eventId: `evt_fold_${i}`,
            eventType: 'signup',
            at: Date.now(),
            account: `pending_${i}`,
            identity: { phone: '+1555750', ...(i === 4 ? { wallet: 'w-750' } : {}) },
          },
          25,
        )!;
        const pending = await pendingLinksJoining(client, scope, linkKeys(link));
        const facts = await readClusterFacts(h.deps.graph, h.deps.cypher, link, 5000, { pending });
        seen.push(facts.accounts);
        expect(facts.viaKinds).to.deep.equal(['phone']);
        await insertGraphOps(client, scope, [{ kind: 'link', payload: link }]);
      }
      expect(seen).to.deep.equal([2, 3, 4, 5, 6]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it("expires a link not seen again within its kind's days, with a controlled clock", async () => {
    let now = Date.now();
    const clock = { now: () => new Date(now) };
    const { dns, rdap, intelDir } = await standIns();
    const deps = testDeps({ DNS_SERVERS: dns.server, RDAP_BASE_URL: rdap.url, INTEL_DIR: intelDir, SIGNAL_DEADLINE_MS: '2000' }, { clock });
    await deps.warmup();
    const app = createApp(deps);
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const version = await publishPolicy(deps, scope, {
      document: aDocument({}, { graph: { kinds: { phone: { expiry_days: 2 } }, default: { exclude: ['0000000000'] } } }),
    });
    await until('the policy in force', async () => {
      await deps.policies.refresh(scope);
      return deps.policies.forScope(scope).version === version ? true : undefined;
    });
    const send = async (body: object) => {
      const res = await request(app).post('/v1/verdict').set(bearer(tenant.keys.sk_test)).send(body).expect(200);
      await graphSettled(deps, tenant.tenantId);
      return res;
    };
    await send(aSignup({ external_user_id: 'old_1', identity: { phone: '+1555800', wallet: 'w-800', spare: '0000000000' } }));
    await send(aSignup({ external_user_id: 'old_2', identity: { phone: '+1555800', spare: '0000000000' }, ip: '100.64.27.2' }));
    // The wallet has no expiry; the placeholder never links (excluded for every kind).
    await send(aSignup({ external_user_id: 'old_3', identity: { wallet: 'w-800', spare: '0000000000' }, ip: '100.64.27.3' }));
    expect(await partition(deps, tenant.tenantId)).to.deep.equal([['old_1', 'old_2', 'old_3']]);
    now += 3 * 86_400_000;
    // What the graph writer runs every GRAPH_EXPIRY_SWEEP_MS for the scopes of its lanes, here at
    // this test's clock (the suite's writers, which own the lanes, keep the real one).
    expect((await expiredScopes(deps.graph, deps.cypher, now)).map((x) => x.tenantId)).to.include(tenant.tenantId);
    expect(await expireLinks(deps.graph, deps.cypher, scope, now, 10_000)).to.equal(2);
    expect(await partition(deps, tenant.tenantId)).to.deep.equal([['old_1', 'old_3'], ['old_2']]);
    expect(await expireLinks(deps.graph, deps.cypher, scope, now, 10_000)).to.equal(0);
    // A new account with the recycled number three days later joins no one through it.
    const res = await send(aSignup({ external_user_id: 'new_owner', identity: { phone: '+1555800' }, ip: '100.64.27.4' }));
    expect(reason(res, 'identity_cluster')).to.equal(undefined);
    // The graph holds what Postgres says at this test's clock (three days ahead of the real one,
    // so the suite's last check, at the real clock, leaves the scope to this one).
    expect((await verifyGraph(deps, scope)).differences).to.deep.equal([]);
    await noteGraphScope(deps.db, tenant.tenantId, { drift: "verified in its test at the test's clock, three days ahead" });
  });

  it('recluster recomputes a scope under a changed link policy, and ends where the same events in another order end', async () => {
    const events = Array.from({ length: 9 }, (_, i) => ({
      external_user_id: `o_${i}`,
      identity: { hotspot: 'airport', ...(i % 3 === 0 ? {} : { phone: `+1555900${Math.floor(i / 3)}` }) },
      ip: `100.64.28.${i + 1}`,
    }));
    const partitions: string[][][] = [];
    for (const order of [events, [...events].reverse()]) {
      const h = await verdictHarness();
      for (const e of order) await h.verdict(aSignup(e));
      const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
      expect(await partition(h.deps, h.tenant.tenantId)).to.have.length(1);
      await withPolicy(h, { kinds: { hotspot: { links: false } } });
      // Applied by the suite's graph writer, which owns the lanes (the CLI starts one of its own).
      const r = await reclusterGraph(h.deps, scope);
      expect(r).to.deep.equal({ clustersBefore: 1, clustersAfter: 6, split: 1, merged: 0 });
      partitions.push(await partition(h.deps, h.tenant.tenantId));
    }
    expect(partitions[0]).to.deep.equal(partitions[1]);
    expect(partitions[0]!.map((c) => c.length).sort()).to.deep.equal([1, 1, 1, 2, 2, 2]);
  });
});
