// Reviews and the signed review.resolved webhook, against the real Postgres, the real
// pg-boss workers and a real local HTTP receiver. Every delivery is verified the way a receiver
// would: @octokit/webhooks-methods' verify over the raw bytes, before parsing.
import type { Scope } from '../../src/scope.js';
import { expect } from 'chai';
import { verify } from '@octokit/webhooks-methods';
import request from 'supertest';
import type { Deps } from '../../src/deps.js';
import { startWorkers } from '../../src/start-workers.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { postWebhook } from '../../src/webhooks/post-webhook.js';
import { isPublicAddress } from '../../src/webhooks/safe-address.js';
import { aTenant, bearer } from '../support/fixtures.js';
import { startHttpStandIn, type HttpStandIn, type RecordedRequest } from '../support/http-stand-in.js';
import { freePort, until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup, codes, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { verifies, WEBHOOK_ENV } from '../support/webhook-receiver.js';

describe('reviews and the review.resolved webhook', function () {
  this.timeout(60_000);
  let h: Harness;
  let receiver: HttpStandIn;
  let secret: string;
  let worker: { close(): Promise<void> };
  let workerDeps: Deps;

  before(async () => {
    workerDeps = testDeps({ ...WEBHOOK_ENV, JOB_MAINTENANCE_SECONDS: '1' });
    worker = await startWorkers(workerDeps);
  });
  after(async () => {
    await worker.close();
    await workerDeps.boss.stop({ graceful: false, wait: true });
  });
  beforeEach(async () => {
    h = await verdictHarness(WEBHOOK_ENV);
    receiver = await startHttpStandIn(() => ({ status: 200 }));
    secret = (await setWebhook(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, `${receiver.url}/hooks`)).secret;
  });
  afterEach(async () => {
    await receiver.close();
  });

  const scope = (): Scope => ({ tenantId: h.tenant.tenantId, mode: 'test' });
  const aReview = async (extra: Record<string, unknown> = {}) => {
    const res = await h.verdict(aSignup({ ip: IPS.proxy, ...extra }));
    expect(res.body.verdict, `${res.status} ${JSON.stringify(res.body)}`).to.equal('review');
    return res.body.id as string;
  };
  const resolve = (eventId: string, resolution: 'approved' | 'denied', s = scope()) =>
    resolveReview(h.deps, s, { eventId, resolution, resolvedBy: 'test-analyst', note: 'checked' });

  it('sends a signed review.resolved for a denial, with final_verdict block, exactly per the contract', async () => {
    const eventId = await aReview({ external_user_id: 'bad_actor', email: 'bad@shop-mail.com' });
    const resolved = await resolve(eventId, 'denied');
    expect(resolved.finalVerdict).to.equal('block');
    const [delivery] = await receiver.waitForRequests(1, 15_000);
    expect(await verifies(secret, delivery!)).to.equal(true);
    expect(delivery!.path).to.equal('/hooks');
    expect(delivery!.headers['content-type']).to.equal('application/json');
    expect(delivery!.headers['user-agent']).to.match(/^Doorman-Webhooks\//);
    expect(delivery!.headers['doorman-delivery-id']).to.equal(resolved.deliveryId);
    expect(delivery!.headers['doorman-delivery-attempt']).to.equal('1');
    expect(JSON.parse(delivery!.body)).to.deep.equal({
      type: 'review.resolved',
      event_id: eventId,
      resolution: 'denied',
      final_verdict: 'block',
      resolved_at: resolved.resolvedAt.toISOString(),
      external_user_id: 'bad_actor',
      email: 'bad@shop-mail.com',
      delivery_id: resolved.deliveryId,
      policy_version: '2026-11-26.1',
    });
  });

  it('sends final_verdict allow for an approval, and GET /v1/events/{id} shows the resolution beside the verdict as judged', async () => {
    const eventId = await aReview();
    await resolve(eventId, 'approved');
    const [delivery] = await receiver.waitForRequests(1, 15_000);
    expect(JSON.parse(delivery!.body)).to.include({ resolution: 'approved', final_verdict: 'allow' });
    expect(JSON.parse(delivery!.body)).not.to.have.property('external_user_id');
    const stored = await request(h.app).get(`/v1/events/${eventId}`).set(bearer(h.tenant.keys.sk_test));
    expect(stored.body.verdict).to.equal('review');
    expect(stored.body.review).to.include({ status: 'approved', final_verdict: 'allow' });
    expect(stored.body.review.resolved_at).to.be.a('string');
  });

  it('names the external_user_id attached by PATCH after the verdict', async () => {
    const eventId = await aReview();
    await request(h.app)
      .patch(`/v1/events/${eventId}`)
      .set(bearer(h.tenant.keys.sk_test))
      .send({ external_user_id: 'late_bound' })
      .expect(200);
    await resolve(eventId, 'denied');
    const [delivery] = await receiver.waitForRequests(1, 15_000);
    expect(JSON.parse(delivery!.body).external_user_id).to.equal('late_bound');
  });

  it('retries a 500 and delivers the same bytes with the same signature, recording every attempt', async () => {
    let calls = 0;
    receiver.respondWith(() => ({ status: ++calls === 1 ? 500 : 200, body: calls === 1 ? 'down for a moment' : 'ok' }));
    const eventId = await aReview();
    const { deliveryId } = await resolve(eventId, 'denied');
    const [first, second] = await receiver.waitForRequests(2, 15_000);
    expect(second!.body).to.equal(first!.body);
    expect(second!.headers['service-signature']).to.equal(first!.headers['service-signature']);
    expect([first!.headers['doorman-delivery-attempt'], second!.headers['doorman-delivery-attempt']]).to.deep.equal(['1', '2']);
    await until('the delivery to be delivered', async () => {
      const { rows } = await h.deps.db.query('SELECT status FROM webhook_deliveries WHERE id = $1', [deliveryId]);
      return rows[0].status === 'delivered' ? true : undefined;
    });
    const { rows } = await h.deps.db.query(
      'SELECT attempt, status_code, response_body FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [deliveryId],
    );
    expect(rows).to.deep.equal([
      { attempt: 1, status_code: 500, response_body: 'down for a moment' },
      { attempt: 2, status_code: 200, response_body: 'ok' },
    ]);
  });

  it('delivers everything to a receiver that was down and comes back', async () => {
    const port = await freePort();
    await setWebhook(h.deps, scope(), `http://127.0.0.1:${port}/later`);
    const ids = [await aReview(), await aReview()];
    for (const id of ids) await resolve(id, 'denied');
    await until('attempts to fail against the closed port', async () => {
      const { rows } = await h.deps.db.query(
        `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.tenant_id = $1 AND a.error LIKE 'ECONNREFUSED%'`,
        [h.tenant.tenantId],
      );
      return rows[0].n >= 2 ? true : undefined;
    });
    const back = await startHttpStandIn(() => ({ status: 204 }), port);
    try {
      const got = await back.waitForRequests(2, 20_000);
      expect(got.map((r) => JSON.parse(r.body).event_id).sort()).to.deep.equal([...ids].sort());
    } finally {
      await back.close();
    }
  });

  it('keeps verifying with the previous secret during the rotation overlap', async () => {
    const rotated = await setWebhook(h.deps, scope(), `${receiver.url}/hooks`);
    await resolve(await aReview(), 'denied');
    const [delivery] = await receiver.waitForRequests(1, 15_000);
    const signatures = String(delivery!.headers['service-signature']).split(' ');
    expect(signatures).to.have.length(2);
    expect(await verify(rotated.secret, delivery!.body, signatures[0]!)).to.equal(true);
    expect(await verifies(secret, delivery!)).to.equal(true);
  });

  it("refuses a second resolution, an unknown id, an event that was not a review, and another tenant's or mode's event", async () => {
    const eventId = await aReview();
    await resolve(eventId, 'denied');
    await expectError(resolve(eventId, 'approved'), 'conflict', /already resolved/);
    await expectError(resolve('evt_nope', 'denied'), 'not_found');
    const allowed = await h.verdict(aSignup());
    await expectError(resolve(allowed.body.id, 'denied'), 'conflict', /not a review/);
    const other = await aTenant(h.deps);
    const otherReview = await aReview();
    await expectError(resolve(otherReview, 'denied', { tenantId: other.tenantId, mode: 'test' }), 'not_found');
    await expectError(resolve(otherReview, 'denied', { tenantId: h.tenant.tenantId, mode: 'live' }), 'not_found');
  });

  it('feeds the graph: a denial marks the cluster like confirmed abuse, an approval suppresses the codes that fired', async () => {
    const denied = await aReview({ external_user_id: 'ring_1', identity: { phone: '+1555606' } });
    await resolve(denied, 'denied');
    await h.graphSettled();
    const linked = await h.verdict(aSignup({ external_user_id: 'ring_2', identity: { phone: '+1555606' }, ip: '100.64.60.2' }));
    expect(codes(linked)).to.include('cluster_confirmed_abuse');
    const approved = await aReview({ external_user_id: 'vpn_user' });
    await resolve(approved, 'approved');
    await h.graphSettled();
    const again = await h.verdict(aSignup({ external_user_id: 'vpn_user', ip: IPS.proxy }));
    expect(again.body.verdict).to.equal('allow');
    const { rows } = await h.deps.db.query('SELECT status, resolved_by, note FROM reviews WHERE tenant_id = $1 AND event_id = $2', [
      h.tenant.tenantId,
      approved,
    ]);
    expect(rows[0]).to.deep.equal({ status: 'approved', resolved_by: 'test-analyst', note: 'checked' });
  });

  it('delivers each attempt once with two worker processes at work', async () => {
    const second = testDeps({ ...WEBHOOK_ENV, PG_POOL_MAX: '3' });
    const other = await startWorkers(second);
    try {
      const ids = [];
      for (let i = 0; i < 10; i++) ids.push(await aReview());
      await Promise.all(ids.map((id) => resolve(id, 'denied')));
      const got = await receiver.waitForRequests(10, 20_000);
      await new Promise((r) => setTimeout(r, 500));
      const keys = receiver.requests.map((r) => `${r.headers['doorman-delivery-id']}#${r.headers['doorman-delivery-attempt']}`);
      expect(new Set(keys).size).to.equal(keys.length);
      expect(got).to.have.length(10);
    } finally {
      await other.close();
      await second.boss.stop({ graceful: false, wait: true });
    }
  });
});

async function expectError(work: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  try {
    await work;
  } catch (err) {
    expect((err as { code?: string }).code).to.equal(code);
    if (message) expect((err as Error).message).to.match(message);
    return;
  }
  expect.fail(`expected ${code}`);
}

describe('webhook addresses (SSRF)', () => {
  it('refuses loopback, private, link-local, metadata and non-http URLs when private addresses are not allowed', async () => {
    const deps = testDeps({ WEBHOOK_ALLOW_PRIVATE: 'false' });
    const tenant = await aTenant(deps);
    const s = { tenantId: tenant.tenantId, mode: 'test' as const };
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://192.168.0.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/x',
      'http://[fd00:ec2::254]/',
      'ftp://example.org/x',
      'http://user:pw@203.0.113.1/',
    ]) {
      await expectError(setWebhook(deps, s, url), 'invalid_request');
    }
    expect(isPublicAddress('93.184.216.34')).to.equal(true);
    expect(isPublicAddress('::ffff:127.0.0.1')).to.equal(false);
  });

  it('refuses at delivery time too, on the address it would connect to, and sends nothing', async () => {
    const receiver = await startHttpStandIn();
    try {
      const outcome = await postWebhook(`${receiver.url}/x`, '{}', {}, { timeoutMs: 2000, allowPrivate: false });
      expect(outcome.statusCode).to.equal(undefined);
      expect(outcome.error).to.match(/EWEBHOOKADDRESS/);
      expect(receiver.requests).to.have.length(0);
    } finally {
      await receiver.close();
    }
  });

  it('does not follow redirects', async () => {
    const receiver = await startHttpStandIn(() => ({ status: 302, headers: { location: 'http://169.254.169.254/' } }));
    try {
      const outcome = await postWebhook(`${receiver.url}/x`, '{}', {}, { timeoutMs: 2000, allowPrivate: true });
      expect(outcome.statusCode).to.equal(302);
      expect(receiver.requests).to.have.length(1);
    } finally {
      await receiver.close();
    }
  });
});
