// The console's JSON API against the real stores and a real webhook receiver: the queue and its
// resolution through resolveReview, feedback, events search and detail, the cluster picture,
// saved queries (tenant and mode injected, row cap, read-only, CSV), the overview, the audit log,
// the live/test switch, and 404 for another tenant's event, review, cluster and query.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import type { Deps } from '../../src/deps.js';
import { loadCypher } from '../../src/graph/cypher-catalog.js';
import { startWorkers } from '../../src/start-workers.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { anAnalyst as signedIn, type ConsoleClient } from '../support/console-session.js';
import { bearer } from '../support/fixtures.js';
import { startHttpStandIn, type HttpStandIn } from '../support/http-stand-in.js';
import { testDeps } from '../support/test-deps.js';
import { aCheckout, aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { verify } from '@octokit/webhooks-methods';
import type { RecordedRequest } from '../support/http-stand-in.js';
import { wireChecked } from './wire-conformance.js';

// Every analyst's answers are checked against the console wire's schema (wire-conformance.ts).
const anAnalyst = async (...args: Parameters<typeof signedIn>) => wireChecked(await signedIn(...args));

const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_UNIT_MS: '10', WEBHOOK_TIMEOUT_MS: '2000' };

// A receiver's check: one of the header's signatures verifies the raw body with the secret.
async function verifies(secret: string, req: RecordedRequest): Promise<boolean> {
  const parts = String(req.headers['service-signature'] ?? '').split(' ');
  return (await Promise.all(parts.map((sig) => verify(secret, req.body, sig).catch(() => false)))).some(Boolean);
}

describe('console API', function () {
  this.timeout(60_000);
  let h: Harness;
  let other: Harness;
  let a: ConsoleClient;
  let admin: ConsoleClient;
  let receiver: HttpStandIn;
  let secret: string;
  let worker: { close(): Promise<void> };
  let workerDeps: Deps;
  const reviews: string[] = [];
  let otherReview: string;

  before(async () => {
    workerDeps = testDeps(WEBHOOK_ENV);
    worker = await startWorkers(workerDeps);
    h = await verdictHarness(WEBHOOK_ENV);
    other = await verdictHarness(WEBHOOK_ENV);
    receiver = await startHttpStandIn(() => ({ status: 200 }));
    secret = (await setWebhook(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, `${receiver.url}/hooks`)).secret;
    for (let i = 0; i < 3; i++) {
      const res = await h.verdict(
        aSignup({ ip: IPS.proxy, external_user_id: `ring_${i}`, email: `ring${i}@shop-mail.com`, identity: { phone: '+1555000777' } }),
      );
      expect(res.body.verdict).to.equal('review');
      reviews.push(res.body.id);
    }
    otherReview = (await other.verdict(aSignup({ ip: IPS.proxy, external_user_id: 'theirs', identity: { phone: '+1555000777' } }))).body.id;
    a = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'analyst');
    admin = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'admin');
  });
  after(async () => {
    await receiver.close();
    await worker.close();
    await workerDeps.boss.stop({ graceful: false, wait: true });
  });

  it('lists pending reviews oldest first with their age, the backlog and a keyset cursor', async () => {
    const first = await a.get('/reviews?limit=2').expect(200);
    expect(first.body.pending).to.equal(3);
    expect(first.body.reviews.map((r: { event_id: string }) => r.event_id)).to.deep.equal(reviews.slice(0, 2));
    expect(first.body.reviews[0]).to.include({ event_type: 'signup', external_user_id: 'ring_0', email: 'ring0@shop-mail.com' });
    expect(first.body.reviews[0].age_seconds).to.be.a('number').within(0, 120);
    expect(first.body.oldest_created_at).to.equal(first.body.reviews[0].created_at);
    expect(String(first.headers['server-timing'])).to.match(/db;dur=[\d.]+, graph;dur=[\d.]+, total;dur=[\d.]+/);
    const second = await a.get(`/reviews?limit=2&cursor=${first.body.next_cursor}`).expect(200);
    expect(second.body.reviews.map((r: { event_id: string }) => r.event_id)).to.deep.equal([reviews[2]]);
    expect(second.body).not.to.have.property('next_cursor');
  });

  it('shows an event with its signals, earlier events of the account (only earlier ones) and its cluster summary', async () => {
    const login = await h.verdict({ event_type: 'login', external_user_id: 'ring_1', email: 'ring1@shop-mail.com' });
    expect(login.body.verdict).to.equal('allow');
    // The later login lists the signup as earlier; the signup does not list the later login.
    const later = await a.get(`/events/${login.body.id}`).expect(200);
    expect(later.body.earlier.events.map((e: { id: string }) => e.id)).to.deep.equal([reviews[1]]);
    const detail = await a.get(`/events/${reviews[1]}`).expect(200);
    expect(detail.body.event).to.include({
      id: reviews[1],
      verdict: 'review',
      external_user_id: 'ring_1',
      email: 'ring1@shop-mail.com',
      ip: IPS.proxy,
    });
    expect(detail.body.event.identity).to.deep.equal({ phone: '+1555000777' });
    expect(detail.body.signals).to.be.an('object').that.has.property('ip');
    expect(detail.body.review).to.include({ status: 'pending' });
    expect(detail.body.earlier.by).to.equal('external_user_id');
    expect(detail.body.earlier.events).to.deep.equal([]);
    expect(detail.body.cluster).to.include({ accounts: 3, confirmedAbuse: false });
  });

  it('denies a review through resolveReview: the signed webhook arrives, and the audit log names the analyst', async () => {
    const before = receiver.requests.length;
    const res = await a.post(`/reviews/${reviews[0]}/resolve`, { resolution: 'denied', note: 'ring of three' }).expect(200);
    expect(res.body).to.include({ ok: true, final_verdict: 'block' });
    const [delivery] = (await receiver.waitForRequests(before + 1, 15_000)).slice(before);
    expect(await verifies(secret, delivery!)).to.equal(true);
    expect(JSON.parse(delivery!.body)).to.include({
      type: 'review.resolved',
      event_id: reviews[0],
      resolution: 'denied',
      final_verdict: 'block',
      external_user_id: 'ring_0',
      delivery_id: res.body.delivery_id,
    });
    const stored = await a.get(`/events/${reviews[0]}`).expect(200);
    expect(stored.body.review).to.include({ status: 'denied', resolved_by: a.email, note: 'ring of three' });
    expect((await a.post(`/reviews/${reviews[0]}/resolve`, { resolution: 'approved' }).expect(409)).body.error).to.equal('conflict');
    const log = await admin.get('/audit').expect(200);
    expect(log.body.entries[0]).to.include({ action: 'review.resolve', subject: reviews[0], analyst: a.email, mode: 'test' });
    expect(log.body.entries[0].detail).to.include({ resolution: 'denied', delivery_id: res.body.delivery_id });
  });

  it('records feedback through recordFeedback, validated like POST /v1/feedback', async () => {
    await a.post('/feedback', { subject: { kind: 'external_user_id', value: 'ring_2' }, outcome: 'chargeback' }).expect(200);
    const bad = await a.post('/feedback', { subject: { kind: 'ip', value: '1.2.3.4' }, outcome: 'chargeback' }).expect(400);
    expect(bad.body.details.issues[0].path).to.equal('/subject/kind');
    await a.post('/feedback', { subject: { kind: 'external_user_id', value: 'theirs' }, outcome: 'chargeback' }).expect(404);
    const { rows } = await h.deps.db.query('SELECT outcome FROM feedback WHERE tenant_id = $1 AND subject_value = $2', [
      h.tenant.tenantId,
      'ring_2',
    ]);
    expect(rows).to.deep.equal([{ outcome: 'chargeback' }]);
    expect((await admin.get('/audit').expect(200)).body.entries[0]).to.include({ action: 'feedback', subject: 'external_user_id:ring_2' });
  });

  it('lists feedback with its ids, and lets only an admin retract it (audited)', async () => {
    await a.post('/feedback', { subject: { kind: 'external_user_id', value: 'ring_1' }, outcome: 'false_positive' }).expect(200);
    const listed = (await a.get('/feedback?external_user_id=ring_1').expect(200)).body.feedback;
    expect(listed).to.have.length(1);
    expect(listed[0]).to.deep.include({
      outcome: 'false_positive',
      subject: { kind: 'external_user_id', value: 'ring_1' },
      retracted_at: null,
    });
    await a.post(`/feedback/${listed[0].feedback_id}/retract`, { note: 'not mine to undo' }).expect(403);
    await admin.post(`/feedback/${listed[0].feedback_id}/retract`, {}).expect(400);
    const done = await admin.post(`/feedback/${listed[0].feedback_id}/retract`, { note: 'reported by mistake' }).expect(200);
    expect(done.body.feedback).to.deep.include({ feedback_id: listed[0].feedback_id, retract_note: 'reported by mistake' });
    expect(done.body.feedback.retracted_at).to.be.a('string');
    await admin.post('/feedback/fbk_nope/retract', { note: 'x' }).expect(404);
    expect((await admin.get('/audit').expect(200)).body.entries[0]).to.include({
      action: 'feedback.retract',
      subject: listed[0].feedback_id,
    });
  });

  it('searches events by id, external user id, email, verdict, type and time, newest first, a page at a time', async () => {
    const byUser = await a.get('/events?external_user_id=ring_1').expect(200);
    expect(byUser.body.events).to.have.length(2);
    expect(Date.parse(byUser.body.events[0].created_at)).to.be.at.least(Date.parse(byUser.body.events[1].created_at));
    expect((await a.get('/events?email=RING2@shop-mail.com').expect(200)).body.events.map((e: { id: string }) => e.id)).to.deep.equal([
      reviews[2],
    ]);
    expect((await a.get(`/events?id=${reviews[1]}`).expect(200)).body.events).to.have.length(1);
    expect((await a.get(`/events?id=${otherReview}`).expect(200)).body.events).to.have.length(0);
    const reviewed = await a.get('/events?verdict=review&event_type=signup&limit=2').expect(200);
    expect(reviewed.body.events.map((e: { id: string }) => e.id)).to.deep.equal([reviews[2], reviews[1]]);
    const rest = await a.get(`/events?verdict=review&event_type=signup&limit=2&cursor=${reviewed.body.next_cursor}`).expect(200);
    expect(rest.body.events.map((e: { id: string }) => e.id)).to.deep.equal([reviews[0]]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await a.get(`/events?from=${encodeURIComponent(future)}`).expect(200)).body.events).to.have.length(0);
    expect((await a.get('/events?from=yesterday').expect(400)).body.details.issues[0].path).to.equal('/from');
  });

  it("draws an event's cluster: accounts, identifiers and events, bounded, with the cluster's facts", async () => {
    const { cluster_id: clusterId } = (await a.get(`/events/${reviews[1]}/cluster`).expect(200)).body;
    expect((await a.get('/accounts/ring_2/cluster').expect(200)).body.cluster_id).to.equal(clusterId);
    const picture = await a.get(`/clusters/${clusterId}`).expect(200);
    expect(picture.body.cluster).to.include({ id: clusterId, accounts: 3 });
    const keys = picture.body.nodes.map((n: { key: string }) => n.key);
    expect(keys).to.include.members([
      'account:ring_0',
      'account:ring_1',
      'account:ring_2',
      'id:phone:+1555000777',
      'id:email:ring0@shop-mail.com',
    ]);
    expect(picture.body.events.map((e: { id: string }) => e.id)).to.include.members(reviews);
    expect(picture.body.edges).to.deep.include({ from: 'account:ring_0', to: 'id:phone:+1555000777', type: 'LINKED' });
    expect(picture.body.edges).to.deep.include({ from: `event:${reviews[0]}`, to: 'account:ring_0', type: 'BY' });
    expect(picture.body.drawnMembers).to.equal(picture.body.cluster.size);
  });

  it("answers 404 for another tenant's event, review, cluster and query, and for the other mode's", async () => {
    await a.get(`/events/${otherReview}`).expect(404);
    await a.post(`/reviews/${otherReview}/resolve`, { resolution: 'denied' }).expect(404);
    await a.get(`/events/${otherReview}/cluster`).expect(404);
    await a.get('/accounts/theirs/cluster').expect(404);
    const otherAnalyst = await anAnalyst(other.deps, other.app, other.tenant.tenantId);
    const theirCluster = (await otherAnalyst.get(`/events/${otherReview}/cluster`).expect(200)).body.cluster_id;
    await a.get(`/clusters/${theirCluster}`).expect(404);
    const { rows } = await other.deps.db.query('SELECT status FROM reviews WHERE event_id = $1', [otherReview]);
    expect(rows[0].status).to.equal('pending');
    // The same analyst in live mode sees none of the test data.
    const live = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'analyst', 'live');
    await live.get(`/events/${reviews[1]}`).expect(404);
    expect((await live.get('/reviews').expect(200)).body.pending).to.equal(0);
  });

  describe('saved queries', () => {
    let dir: string;
    let app: ReturnType<typeof createApp>;
    let mine: ConsoleClient;
    let theirs: ConsoleClient;

    // A catalog of the repository's files plus one query for each tenant and one that writes.
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-cypher-'));
      fs.cpSync('cypher', dir, { recursive: true });
      const tenantDir = (id: string) => fs.mkdirSync(path.join(dir, 'analyst', 'tenants', id), { recursive: true });
      tenantDir(h.tenant.tenantId);
      tenantDir(other.tenant.tenantId);
      fs.writeFileSync(
        path.join(dir, 'analyst', 'tenants', other.tenant.tenantId, 'their-accounts.cypher'),
        '// their-accounts: accounts.\n// Parameters: $tenantId, $mode, $limit.\n// Returns: account.\nMATCH (a:Account {tenantId: $tenantId, mode: $mode}) RETURN a.externalId AS account LIMIT $limit\n',
      );
      fs.writeFileSync(
        path.join(dir, 'analyst', 'tenants', h.tenant.tenantId, 'sneaky-write.cypher'),
        "// sneaky-write: tries to write.\n// Parameters: $tenantId, $mode.\n// Returns: n.\nCREATE (n:Account {tenantId: $tenantId, mode: $mode, externalId: 'planted'}) RETURN n\n",
      );
      fs.writeFileSync(
        path.join(dir, 'analyst', 'tenants', h.tenant.tenantId, 'all-accounts.cypher'),
        '// all-accounts: every account (ignores $limit).\n// Parameters: $tenantId, $mode.\n// Returns: account.\nMATCH (a:Account {tenantId: $tenantId, mode: $mode}) RETURN a.externalId AS account\n',
      );
      const deps = testDeps({ ...WEBHOOK_ENV, CONSOLE_QUERY_ROW_CAP: '2' }, { cypher: loadCypher(dir) });
      app = createApp(deps);
      mine = await anAnalyst(deps, app, h.tenant.tenantId);
      theirs = await anAnalyst(deps, app, other.tenant.tenantId);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("lists the saved queries with their descriptions and parameters, and only this tenant's own files", async () => {
      const list = (await mine.get('/queries').expect(200)).body;
      const ids = list.queries.map((q: { id: string }) => q.id);
      expect(ids).to.include.members(['hubs', 'largest-clusters', 'shared-identifiers', 'sneaky-write', 'all-accounts']);
      expect(ids).not.to.include('their-accounts');
      expect(list.queries.find((q: { id: string }) => q.id === 'account-devices')).to.deep.include({
        description: 'the devices an account has used, first and last seen (account takeover work).',
        parameters: [{ name: 'account', hint: 'external_user_id' }],
      });
      expect((await theirs.get('/queries').expect(200)).body.queries.map((q: { id: string }) => q.id)).to.include('their-accounts');
      await mine.post('/queries/their-accounts/run', {}).expect(404);
      await mine.get('/queries/their-accounts/csv').expect(404);
    });

    it('runs a query with the tenant and mode injected, whatever the analyst sends, and returns paths for a picture', async () => {
      const rows = (
        await mine.post('/queries/shared-identifiers/run', { account: 'ring_0', tenantId: other.tenant.tenantId, mode: 'live' }).expect(400)
      ).body;
      expect(rows.details.issues.map((i: { path: string }) => i.path)).to.deep.equal(['/tenantId', '/mode']);
      const run = await mine.post('/queries/shared-identifiers/run', { account: 'ring_0' }).expect(200);
      expect(run.body.columns).to.deep.equal(['path', 'kind', 'value', 'other']);
      expect(run.body.rows.map((r: { other: string }) => r.other)).to.deep.equal(['ring_1', 'ring_2']);
      const nodes = run.body.rows[0].path.$path.nodes;
      expect(nodes.map((n: { $node: { labels: string[] } }) => n.$node.labels[0])).to.deep.equal(['Account', 'Identifier', 'Account']);
      expect(nodes[0].$node.properties).to.include({ externalId: 'ring_0' }).and.not.have.property('tenantId');
      expect((await theirs.post('/queries/shared-identifiers/run', { account: 'ring_0' }).expect(200)).body.rows).to.deep.equal([]);
      const missing = await mine.post('/queries/shared-identifiers/run', {}).expect(400);
      expect(missing.body.details.issues).to.deep.equal([{ path: '/account', message: 'is required' }]);
    });

    it('caps the rows even when the query ignores $limit, refuses writes, and downloads CSV', async () => {
      const capped = await mine.post('/queries/all-accounts/run', {}).expect(200);
      expect(capped.body.rows).to.have.length(2);
      expect(capped.body.truncated).to.equal(true);
      const write = await mine.post('/queries/sneaky-write/run', {}).expect(403);
      expect(write.body.message).to.match(/read-only/);
      const { records } = await h.deps.graph.executeQuery("MATCH (a:Account {tenantId: $t, externalId: 'planted'}) RETURN count(a) AS n", {
        t: h.tenant.tenantId,
      });
      expect(records[0]!.get('n')).to.equal(0);
      const csv = await mine.get('/queries/shared-identifiers/csv?account=ring_0').expect(200);
      expect(csv.headers['content-type']).to.match(/^text\/csv/);
      expect(csv.headers['content-disposition']).to.equal('attachment; filename="shared-identifiers.csv"');
      const lines = csv.text.trim().split('\n');
      expect(lines[0]).to.equal('path,kind,value,other');
      expect(lines[1]).to.match(/,phone,'\+1555000777,ring_1$/);
    });
  });

  it('gives the overview: verdicts per hour, top reasons, the backlog and failed deliveries with a working redeliver', async () => {
    await h.verdict(aCheckout({ external_user_id: 'buyer' }));
    const failing = await h.verdict(aSignup({ ip: IPS.proxy }));
    const { rows } = await h.deps.db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1', [h.tenant.tenantId]);
    // A delivery that failed for good (as after its 15 attempts), to redeliver.
    await h.deps.db.query("UPDATE webhook_deliveries SET status = 'failed', attempts = 15, last_status_code = 500 WHERE tenant_id = $1", [
      h.tenant.tenantId,
    ]);
    const overview = (await a.get('/overview').expect(200)).body;
    const totals = overview.verdicts_per_hour.reduce(
      (t: Record<string, number>, r: Record<string, number>) => ({
        allow: t.allow! + r.allow!,
        review: t.review! + r.review!,
        block: t.block! + r.block!,
      }),
      { allow: 0, review: 0, block: 0 },
    );
    expect(totals).to.deep.equal({ allow: 2, review: 4, block: 0 });
    expect(overview.top_reasons[0]).to.deep.equal({ code: 'proxy_ip', events: 4 });
    expect(overview.backlog.pending).to.equal(3);
    expect(overview.webhook.endpoint).to.deep.equal({ url: `${receiver.url}/hooks`, enabled: true });
    expect(overview.webhook.failed).to.have.length(rows[0].n);
    const deliveryId = overview.webhook.failed[0].delivery_id;
    const before = receiver.requests.length;
    await a.post(`/deliveries/${deliveryId}/redeliver`).expect(403);
    await admin.post(`/deliveries/${deliveryId}/redeliver`).expect(200);
    const [again] = (await receiver.waitForRequests(before + 1, 15_000)).slice(before);
    expect(again!.headers['doorman-delivery-id']).to.equal(deliveryId);
    expect(failing.body.verdict).to.equal('review');
  });

  it('switches between test and live; a new account starts in test', async () => {
    const fresh = await anAnalyst(h.deps, h.app, h.tenant.tenantId);
    expect((await fresh.get('/me')).body.mode).to.equal('test');
    await request(h.app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_live))
      .send(aSignup({ ip: IPS.proxy }))
      .expect(200);
    await fresh.post('/mode', { mode: 'live' }).expect(200);
    expect((await fresh.get('/reviews')).body.pending).to.equal(1);
    await fresh.post('/mode', { mode: 'test' }).expect(200);
    expect((await fresh.get('/reviews')).body.pending).to.equal(3);
  });
});
