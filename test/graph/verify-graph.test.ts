// The graph is a copy of Postgres that can be checked. `doorman graph verify` recomputes
// what a scope's graph must hold from Postgres alone (the rebuild's own projection) and names each
// difference; `--repair` mends them through the outbox, audited. A rebuild brings back no retracted
// mark and no undone resolution (drift 3), and a PATCH links under the tenant's link policy like the
// verdict does (drift 5).
import { expect } from 'chai';
import request from 'supertest';
import type { Deps } from '../../src/deps.js';
import { attachUser } from '../../src/events/attach-user.js';
import { retractFeedback } from '../../src/feedback/retract-feedback.js';
import { listFeedback } from '../../src/feedback/feedback-store.js';
import { insertGraphOps, pendingLinksJoining } from '../../src/graph/graph-outbox-store.js';
import { migrateGraph } from '../../src/graph/graph-schema.js';
import { graphLinkOf, linkKeys, type GraphLink } from '../../src/graph/identity-graph.js';
import { erasePerson } from '../../src/lifecycle/erase-person.js';
import { rebuildGraph } from '../../src/lifecycle/rebuild-graph.js';
import { verifyGraph, type VerifyResult } from '../../src/lifecycle/verify-graph.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { undoReviewMarks } from '../../src/reviews/undo-review-marks.js';
import type { Scope } from '../../src/scope.js';
import { aDocument } from '../policies/policy-builders.js';
import { doorman } from '../support/cli-runner.js';
import { bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { aSignup, DOMAINS, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

const actor = (scope: Scope) => ({ ...scope, analystId: null, analystEmail: 'verify-test' });

async function confirmedClusters(h: Harness): Promise<string[][]> {
  const { records } = await h.deps.graph.executeQuery(
    `MATCH (a:Account {tenantId: $t, mode: 'test'})-[:IN]->(c:Cluster) WHERE c.confirmedAbuse
     WITH c, a.externalId AS x ORDER BY x WITH c, collect(x) AS accounts RETURN accounts`,
    { t: h.tenant.tenantId },
  );
  return records.map((r) => r.get('accounts') as string[]).sort();
}

const types = (r: VerifyResult) => [...new Set(r.differences.map((d) => `${d.type} ${d.what}`))].sort();

async function someTraffic(h: Harness): Promise<Scope> {
  const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
  await h.verdict(aSignup({ external_user_id: 'ann', email: 'ann@shop-mail.com', identity: { phone: '+15557100001' } }));
  await h.verdict(aSignup({ external_user_id: 'bob', identity: { phone: '+15557100001', wallet: 'w-bob' } }));
  await h.verdict(aSignup({ external_user_id: 'cat', identity: { wallet: 'w-cat' } }));
  const anonymous = await h.verdict(aSignup({ identity: { wallet: 'w-cat', phone: '+15557100009' } }));
  await request(h.app)
    .patch(`/v1/events/${anonymous.body.id}`)
    .set(bearer(h.tenant.keys.sk_test))
    .send({ external_user_id: 'dan' })
    .expect(200);
  await h.verdict(aSignup({ identity: { wallet: 'w-eve', phone: '+15557100010' } }));
  await request(h.app)
    .post('/v1/feedback')
    .set(bearer(h.tenant.keys.sk_test))
    .send({ subject: { kind: 'external_user_id', value: 'cat' }, outcome: 'chargeback' })
    .expect(200);
  await request(h.app)
    .post('/v1/feedback')
    .set(bearer(h.tenant.keys.sk_test))
    .send({ subject: { kind: 'email', value: 'ann@shop-mail.com' }, outcome: 'confirmed_abuse' })
    .expect(200);
  await h.graphSettled();
  return scope;
}

describe('doorman graph verify', function () {
  this.timeout(120_000);

  it('finds a scope the writer built equal to Postgres, names each difference injected into Neo4j, and --repair mends them', async () => {
    const h = await verdictHarness();
    const scope = await someTraffic(h);
    const clean = await verifyGraph(h.deps, scope);
    expect(clean.differences).to.deep.equal([]);
    expect(clean.ok).to.equal(true);
    expect(clean.checked).to.include({ events: 5, accounts: 4, marks: 2 });
    // The account the confirmed mark (on its email) is about carries the mark's time; no other does.
    const marked = await h.deps.graph.executeQuery(
      `MATCH (a:Account {tenantId: $t, mode: 'test'}) WHERE a.confirmedAt IS NOT NULL RETURN a.externalId AS x, a.confirmedAt AS at`,
      { t: scope.tenantId },
    );
    const { rows: mark } = await h.deps.db.query(
      `SELECT created_at FROM feedback WHERE tenant_id = $1 AND mode = 'test' AND outcome = 'confirmed_abuse'`,
      [scope.tenantId],
    );
    expect(marked.records.map((r) => [r.get('x'), Number(r.get('at'))])).to.deep.equal([['ann', (mark[0].created_at as Date).getTime()]]);

    const cli = await doorman(['graph', 'verify', '--tenant', scope.tenantId, '--mode', 'test', '--json']);
    expect(cli.code, cli.stderr).to.equal(0);
    expect(JSON.parse(cli.stdout)).to.deep.include({ ok: true, differences: [] });

    // Drift, written behind the writer's back.
    const t = { t: scope.tenantId };
    await h.deps.graph.executeQuery(
      `MATCH (:Account {tenantId: $t, mode: 'test', externalId: 'bob'})-[k:LINKED]->(:Identifier {kind: 'wallet', value: 'w-bob'}) DELETE k`,
      t,
    );
    await h.deps.graph.executeQuery(
      `MATCH (:Account {tenantId: $t, mode: 'test', externalId: 'cat'})-[:IN]->(c:Cluster) SET c.confirmedAbuse = true`,
      t,
    );
    await h.deps.graph.executeQuery(
      `CREATE (:Feedback {tenantId: $t, mode: 'test', key: 'feedback:external_user_id:cat:confirmed_abuse', outcome: 'confirmed_abuse', at: 0, codes: []})`,
      t,
    );
    await h.deps.graph.executeQuery(
      `CREATE (:Account {tenantId: $t, mode: 'test', externalId: 'ghost', firstSeenAt: 0, history: false})`,
      t,
    );
    // The time of an account's mark, lost on one account and made up on another.
    await h.deps.graph.executeQuery(`MATCH (a:Account {tenantId: $t, mode: 'test', externalId: 'ann'}) REMOVE a.confirmedAt`, t);
    await h.deps.graph.executeQuery(`MATCH (a:Account {tenantId: $t, mode: 'test', externalId: 'dan'}) SET a.confirmedAt = 1`, t);
    const drifted = await verifyGraph(h.deps, scope);
    expect(drifted.ok).to.equal(false);
    expect(types(drifted)).to.include.members([
      'missing_link LINKED',
      'wrong_facts cluster',
      'stale_mark mark',
      'extra_node account',
      'wrong_facts account',
    ]);
    expect(drifted.differences.filter((d) => d.what === 'account' && d.type === 'wrong_facts')).to.deep.equal([
      { type: 'wrong_facts', what: 'account', subject: 'ann confirmedAt', expected: (mark[0].created_at as Date).getTime(), found: null },
      { type: 'wrong_facts', what: 'account', subject: 'dan confirmedAt', expected: null, found: 1 },
    ]);

    const found = await doorman(['graph', 'verify', '--tenant', scope.tenantId, '--mode', 'test', '--json']);
    expect(found.code).to.equal(1);
    expect(JSON.parse(found.stdout).ok).to.equal(false);
    expect(found.stderr).to.match(/differs from Postgres/);

    const repaired = await doorman(['graph', 'verify', '--tenant', scope.tenantId, '--mode', 'test', '--repair', '--json']);
    expect(repaired.code, repaired.stderr + repaired.stdout).to.equal(0);
    const out = JSON.parse(repaired.stdout);
    expect(out).to.deep.include({ ok: true, differences: [] });
    expect(out.repaired.differences).to.be.at.least(4);
    const { rows } = await h.deps.db.query(`SELECT action, detail FROM console_audit WHERE tenant_id = $1 AND action = 'graph.repair'`, [
      scope.tenantId,
    ]);
    expect(rows).to.have.length(1);
    expect((await verifyGraph(h.deps, scope)).ok).to.equal(true);
  });

  it('an account carries the time of the earliest confirmed mark about it, through a later link, a second mark, a retraction and an erasure, as Postgres says', async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const t = { t: scope.tenantId };
    const email = `marked.${Date.now()}@${DOMAINS.good}`;
    const confirmedAt = async () => {
      const { records } = await h.deps.graph.executeQuery(
        `MATCH (a:Account {tenantId: $t, mode: 'test'}) WHERE a.confirmedAt IS NOT NULL RETURN a.externalId AS x, a.confirmedAt AS at ORDER BY x`,
        t,
      );
      return Object.fromEntries(records.map((r) => [r.get('x') as string, Number(r.get('at'))]));
    };
    const markTime = async (kind: string, value: string) => {
      const { rows } = await h.deps.db.query(
        `SELECT created_at FROM feedback WHERE tenant_id = $1 AND mode = 'test' AND subject_kind = $2 AND subject_value = $3`,
        [scope.tenantId, kind, value],
      );
      return (rows[0].created_at as Date).getTime();
    };
    const report = (kind: string, value: string) =>
      request(h.app)
        .post('/v1/feedback')
        .set(bearer(h.tenant.keys.sk_test))
        .send({ subject: { kind, value }, outcome: 'confirmed_abuse' })
        .expect(200);

    await h.verdict(aSignup({ external_user_id: 'kay', email }));
    const lee = await h.verdict(aSignup({ external_user_id: 'lee', identity: { wallet: 'w-lee' } }));
    await report('email', email);
    await h.graphSettled();
    const onEmail = await markTime('email', email);
    expect(await confirmedAt()).to.deep.equal({ kay: onEmail });
    // A graph written before accounts carried it gets it from the schema step, once.
    await h.deps.graph.executeQuery(`MATCH (a:Account {tenantId: $t, mode: 'test', externalId: 'kay'}) REMOVE a.confirmedAt`, t);
    await migrateGraph(h.deps.graph, h.deps.cypher);
    expect(await confirmedAt()).to.deep.equal({ kay: onEmail });

    // An account that links the marked email later; a mark on an event of another account.
    await h.verdict(aSignup({ external_user_id: 'max', email }));
    await report('event_id', lee.body.id as string);
    await report('external_user_id', 'kay');
    await h.graphSettled();
    const onLee = await markTime('event_id', lee.body.id as string);
    const onKay = await markTime('external_user_id', 'kay');
    expect(await confirmedAt()).to.deep.equal({ kay: onEmail, lee: onLee, max: onEmail });
    expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);

    // Kay erased: the marks about her account and her email go with her, and max, who still links
    // the email, has none left.
    await erasePerson(h.deps, scope, { kind: 'external_user_id', value: 'kay' }, { requestedBy: 'test' });
    await h.graphSettled();
    expect(await confirmedAt()).to.deep.equal({ lee: onLee });

    // The mark on lee's event taken back.
    const [fb] = await listFeedback(h.deps.db, scope, { eventId: lee.body.id as string });
    await retractFeedback(h.deps, scope, { feedbackId: fb!.feedback_id, note: 'wrong event', actor: actor(scope) });
    await h.graphSettled();
    expect(await confirmedAt()).to.deep.equal({});
    expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
  });

  it('a rebuild brings back neither a retracted outcome nor an undone resolution (drift 3)', async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    await h.verdict(aSignup({ external_user_id: 'gus', identity: { phone: '+15557200001' } }));
    await h.verdict(aSignup({ external_user_id: 'hal', identity: { phone: '+15557200001' } }));
    const tor = await h.verdict(aSignup({ external_user_id: 'ida', ip: IPS.tor, identity: { wallet: 'w-ida' } }));
    expect(tor.body.verdict).to.equal('review');
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'external_user_id', value: 'gus' }, outcome: 'confirmed_abuse' })
      .expect(200);
    await resolveReview(h.deps, scope, { eventId: tor.body.id, resolution: 'denied', resolvedBy: 'analyst@example.com' });
    await h.graphSettled();
    expect(await confirmedClusters(h)).to.deep.equal([['gus', 'hal'], ['ida']]);

    const [fb] = await listFeedback(h.deps.db, scope, { externalUserId: 'gus' });
    await retractFeedback(h.deps, scope, { feedbackId: fb!.feedback_id, note: 'wrong account', actor: actor(scope) });
    await undoReviewMarks(h.deps, scope, {
      eventId: tor.body.id,
      note: 'mistaken denial',
      actor: { ...actor(scope), analystEmail: 'analyst@example.com' },
      role: 'admin',
    });
    await h.graphSettled();
    expect(await confirmedClusters(h)).to.deep.equal([]);
    expect((await verifyGraph(h.deps, scope)).ok).to.equal(true);

    const rebuilt = await rebuildGraph(h.deps, scope, { waitMs: 30_000 });
    expect(rebuilt).to.deep.equal({ events: 3, marks: 0 });
    expect(await confirmedClusters(h)).to.deep.equal([]);
    const v = await verifyGraph(h.deps, scope);
    expect(v.differences).to.deep.equal([]);
  });

  it('a PATCH links under the link policy in force, as the verdict does (drift 5)', async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const version = await publishPolicy(h.deps, scope, {
      document: aDocument({}, { graph: { kinds: { wifi: { links: false }, phone: { hub_threshold: 4 } } } }),
    });
    await until('the published policy in force', async () => {
      await h.deps.policies.refresh(scope);
      return h.deps.policies.forScope(scope).version === version ? true : undefined;
    });
    const anonymous = await h.verdict(aSignup({ identity: { wifi: 'cafe-1', phone: '+15557300001' } }));
    // The link PATCH queues, seen on its way into the real outbox.
    let queued: GraphLink | undefined;
    const outbox = h.deps.graphOutbox;
    const deps: Deps = {
      ...h.deps,
      graphOutbox: {
        ...outbox,
        accountLink: (db, s, link) => {
          queued = link;
          return outbox.accountLink(db, s, link);
        },
      },
    };
    await attachUser(deps, scope, { eventId: anonymous.body.id, externalUserId: 'jay' });
    const ids = Object.fromEntries(queued!.ids.map((i) => [i.kind, i]));
    expect(ids.wifi).to.include({ links: false });
    expect(ids.phone).to.include({ links: true, hub: 4 });
    await h.graphSettled();
    expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
  });

  it('one key builder: an identity key named `account`, or a kind holding a colon, joins nothing it does not share (drift 5)', async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const client = await h.deps.db.connect();
    try {
      // Waiting, uncommitted: out of every writer's reach.
      await client.query('BEGIN');
      const waiting = graphLinkOf(
        scope,
        { eventId: 'evt_key_1', eventType: 'signup', at: Date.now(), account: 'bob', identity: { 'a:b': 'c' } },
        25,
      )!;
      await insertGraphOps(client, scope, [{ kind: 'link', payload: waiting }]);
      // Another event whose identity map says `account: bob` and `a: b:c`: neither is bob's account
      // nor bob's `a:b` identifier.
      const other = graphLinkOf(
        scope,
        { eventId: 'evt_key_2', eventType: 'signup', at: Date.now(), identity: { account: 'bob', a: 'b:c' } },
        25,
      )!;
      expect(await pendingLinksJoining(client, scope, linkKeys(other))).to.deep.equal([]);
      // The same account does join, with the keys the outbox stored.
      const same = graphLinkOf(scope, { eventId: 'evt_key_3', eventType: 'login', at: Date.now(), account: 'bob' }, 25)!;
      const joined = await pendingLinksJoining(client, scope, linkKeys(same));
      expect(joined.map((p) => p.keys)).to.deep.equal([linkKeys(waiting)]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  describe('what the randomized histories found (test/histories/)', () => {
    it('a mark reached only through an identifier that became a hub leaves the cluster with it', async () => {
      const h = await verdictHarness();
      const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
      const version = await publishPolicy(h.deps, scope, { document: aDocument({}, { graph: { default: { hub_threshold: 2 } } }) });
      await until('the published policy in force', async () => {
        await h.deps.policies.refresh(scope);
        return h.deps.policies.forScope(scope).version === version ? true : undefined;
      });
      const email = 'shared.k2@shop-mail.com';
      const first = await h.verdict({ event_type: 'signup', email, ip: IPS.clean });
      await request(h.app)
        .post('/v1/feedback')
        .set(bearer(h.tenant.keys.sk_test))
        .send({ subject: { kind: 'event_id', value: first.body.id }, outcome: 'confirmed_abuse' })
        .expect(200);
      await h.verdict({ event_type: 'signup', email, ip: IPS.clean, identity: { wallet: 'w-k2' } });
      await h.graphSettled();
      // The third anonymous use makes the email a hub: the wallet's cluster no longer holds the
      // event the mark is about.
      await h.verdict({ event_type: 'trial_start', email, ip: IPS.clean, identity: { phone: '+15557400002' } });
      await h.graphSettled();
      expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
      const again = await h.verdict({ event_type: 'signup', external_user_id: 'k2_new', ip: IPS.clean, identity: { wallet: 'w-k2' } });
      expect((again.body.reasons as { code: string }[]).map((r) => r.code)).to.not.include('cluster_confirmed_abuse');
    });

    it('a hub whose count falls back to its threshold links again, after a PATCH or an erasure', async () => {
      for (const [undo, links] of [
        ['patch', true],
        ['erase', true],
        ['patch', false],
      ] as const) {
        const h = await verdictHarness();
        const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
        // Also for a kind that does not link (the histories' K9): its hub flag follows the count too.
        const version = await publishPolicy(h.deps, scope, {
          document: aDocument({}, { graph: { kinds: { phone: { hub_threshold: 2, links } } } }),
        });
        await until('the published policy in force', async () => {
          await h.deps.policies.refresh(scope);
          return h.deps.policies.forScope(scope).version === version ? true : undefined;
        });
        const phone = { phone: '+15557500005' };
        await h.verdict(aSignup({ external_user_id: 'k5_a', identity: phone }));
        await h.verdict(aSignup({ external_user_id: 'k5_b', identity: phone }));
        // A third use: an anonymous event (k5_a's, bound later) or a third person (erased later).
        const third = await h.verdict(aSignup(undo === 'patch' ? { identity: phone } : { external_user_id: 'k5_c', identity: phone }));
        await h.graphSettled();
        const hub = async () =>
          (
            await h.deps.graph.executeQuery(`MATCH (i:Identifier {tenantId: $t, mode: 'test', kind: 'phone'}) RETURN i.hub AS hub`, {
              t: scope.tenantId,
            })
          ).records[0]?.get('hub');
        expect(await hub(), `${undo}: a hub at three uses`).to.equal(true);
        if (undo === 'patch')
          await request(h.app)
            .patch(`/v1/events/${third.body.id}`)
            .set(bearer(h.tenant.keys.sk_test))
            .send({ external_user_id: 'k5_a' })
            .expect(200);
        else await erasePerson(h.deps, scope, { kind: 'external_user_id', value: 'k5_c' }, { requestedBy: 'test' });
        await h.graphSettled();
        expect(await hub(), `${undo}: two accounts again`).to.equal(false);
        expect((await verifyGraph(h.deps, scope)).differences, undo).to.deep.equal([]);
        const next = await h.verdict(aSignup({ external_user_id: 'k5_d', identity: { wallet: 'w-k5' } }));
        expect(next.status).to.equal(200);
      }
    });

    it('a verdict judged by a policy published over before its write is judged again under the one in force', async () => {
      const h = await verdictHarness();
      const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
      const v1 = await publishPolicy(h.deps, scope, { document: aDocument() });
      await h.deps.policies.refresh(scope);
      expect(h.deps.policies.forScope(scope).version).to.equal(v1);
      // Published elsewhere; this process has not heard yet (its memory may lag by the bound).
      const v2 = await publishPolicy(h.deps, scope, { document: aDocument({}, { graph: { kinds: { phone: { links: false } } } }) });
      expect(h.deps.policies.forScope(scope).version).to.equal(v1);
      await h.verdict(aSignup({ external_user_id: 'k6_a', identity: { phone: '+15557600006' } }));
      const res = await h.verdict(aSignup({ external_user_id: 'k6_b', identity: { phone: '+15557600006' } }));
      expect(res.body.policy_version).to.equal(v2);
      expect((res.body.reasons as { code: string }[]).map((r) => r.code)).to.not.include('identity_cluster');
      await h.graphSettled();
      expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
    });

    it("a review resolved, or feedback given, about an erased person's event stands in Postgres and marks nothing", async () => {
      const h = await verdictHarness();
      const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
      const tor = await h.verdict(aSignup({ external_user_id: 'k7_gone', ip: IPS.tor, identity: { phone: '+15557700007' } }));
      expect(tor.body.verdict).to.equal('review');
      await h.graphSettled();
      await erasePerson(h.deps, scope, { kind: 'external_user_id', value: 'k7_gone' }, { requestedBy: 'test' });
      await resolveReview(h.deps, scope, { eventId: tor.body.id, resolution: 'denied', resolvedBy: 'test' });
      await request(h.app)
        .post('/v1/feedback')
        .set(bearer(h.tenant.keys.sk_test))
        .send({ subject: { kind: 'event_id', value: tor.body.id }, outcome: 'chargeback' })
        .expect(200);
      await h.graphSettled();
      const { records } = await h.deps.graph.executeQuery(`MATCH (f:Feedback {tenantId: $t}) RETURN count(f) AS n`, { t: scope.tenantId });
      expect(records[0]?.get('n')).to.equal(0);
      expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
    });

    it('a mark given before its subject is in the graph holds once a link brings the subject', async () => {
      const h = await verdictHarness();
      const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
      await h.verdict(aSignup({ external_user_id: 'k8_known', identity: { phone: '+15557800008' } }));
      // An event that links nothing: no account, no identifier.
      const bare = await h.verdict({ event_type: 'checkout_attempt', ip: IPS.clean });
      await h.graphSettled();
      await request(h.app)
        .post('/v1/feedback')
        .set(bearer(h.tenant.keys.sk_test))
        .send({ subject: { kind: 'event_id', value: bare.body.id }, outcome: 'confirmed_abuse' })
        .expect(200);
      await h.graphSettled();
      // Bound later to an account in a cluster: the mark is about that account's event now.
      await request(h.app)
        .patch(`/v1/events/${bare.body.id}`)
        .set(bearer(h.tenant.keys.sk_test))
        .send({ external_user_id: 'k8_known' })
        .expect(200);
      await h.graphSettled();
      expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
      const next = await h.verdict(aSignup({ external_user_id: 'k8_new', identity: { phone: '+15557800008' } }));
      expect((next.body.reasons as { code: string }[]).map((r) => r.code)).to.include('cluster_confirmed_abuse');
    });

    it('an erasure by email takes every event of the accounts that used it, in Postgres as in the graph', async () => {
      const h = await verdictHarness();
      const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
      await h.verdict(aSignup({ external_user_id: 'k3_acct', identity: { phone: '+15557400003' } }));
      await h.verdict({ event_type: 'login', external_user_id: 'k3_acct', email: 'k3.person@shop-mail.com', ip: IPS.clean });
      await h.verdict(aSignup({ external_user_id: 'k3_other', identity: { phone: '+15557400003' } }));
      await h.graphSettled();
      await erasePerson(h.deps, scope, { kind: 'email', value: 'k3.person@shop-mail.com' }, { requestedBy: 'test' });
      await h.graphSettled();
      const { rows } = await h.deps.db.query(
        `SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND external_user_id = 'k3_acct'`,
        [scope.tenantId],
      );
      expect(rows[0].n).to.equal(0);
      expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
    });
  });
});
