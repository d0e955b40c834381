// The review and webhook commands of the ops CLI, run as an operator runs them, and a worker
// process killed in the middle of a delivery: nothing is lost, the delivery lands after restart.
import { expect } from 'chai';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { QUEUES } from '../../src/jobs/job-queue.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { doorman } from '../support/cli-runner.js';
import { startHttpStandIn, type HttpStandIn } from '../support/http-stand-in.js';
import { startReadyWorker, until } from '../support/processes.js';
import { aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { verifies, WEBHOOK_ENV } from '../support/webhook-receiver.js';

describe('doorman review and webhook commands', function () {
  this.timeout(120_000);
  let h: Harness;
  let receiver: HttpStandIn;
  beforeEach(async () => {
    h = await verdictHarness(WEBHOOK_ENV);
    receiver = await startHttpStandIn(() => ({ status: 200 }));
  });
  afterEach(() => receiver.close());

  const cli = (...args: string[]) => doorman(['--json', ...args], WEBHOOK_ENV);
  const scopeArgs = () => ['--tenant', h.tenant.tenantId, '--mode', 'test'];
  const aReview = async () => (await h.verdict(aSignup({ ip: IPS.proxy, external_user_id: `u${Date.now()}` }))).body.id as string;

  it('sets the webhook, lists and resolves reviews once, and shows, lists and redelivers deliveries', async () => {
    const set = await cli('webhook', 'set', ...scopeArgs(), '--url', `${receiver.url}/in`);
    expect(set.code, set.stderr).to.equal(0);
    const { url, secret } = JSON.parse(set.stdout);
    expect(url).to.equal(`${receiver.url}/in`);
    expect(secret).to.match(/^whsec_/);

    const shown = JSON.parse((await cli('webhook', 'show', ...scopeArgs())).stdout);
    expect(shown).to.include({ url: `${receiver.url}/in`, enabled: true });
    expect(shown.secrets).to.have.length(1);
    expect(JSON.stringify(shown)).not.to.contain(secret);

    const first = await aReview();
    const second = await aReview();
    const listed = JSON.parse((await cli('review', 'list', ...scopeArgs())).stdout);
    expect(listed.reviews.map((r: { event_id: string }) => r.event_id)).to.deep.equal([first, second]);
    expect(listed.reviews[0]).to.include({ event_type: 'signup' });
    expect(listed.reviews[0].reasons).to.deep.equal([{ code: 'proxy_ip' }]);
    expect(listed.reviews[0].created_at).to.be.a('string');

    const resolved = await cli('review', 'resolve', first, ...scopeArgs(), '--resolution', 'denied', '--note', 'ring');
    expect(resolved.code, resolved.stderr).to.equal(0);
    expect(JSON.parse(resolved.stdout)).to.include({ ok: true, final_verdict: 'block' });
    const again = await cli('review', 'resolve', first, ...scopeArgs(), '--resolution', 'approved');
    expect(again.code).to.not.equal(0);
    expect(again.stdout).to.equal('');
    expect(again.stderr.trim().split('\n')).to.have.length(1);
    expect(again.stderr).to.match(/already resolved/);
    const notReview = await cli('review', 'resolve', 'evt_unknown', ...scopeArgs(), '--resolution', 'denied');
    expect(notReview.code).to.not.equal(0);
    expect(notReview.stderr).to.match(/No event evt_unknown/);
    const { rows } = await h.deps.db.query('SELECT resolved_by FROM reviews WHERE tenant_id = $1 AND event_id = $2', [
      h.tenant.tenantId,
      first,
    ]);
    expect(rows[0].resolved_by).to.be.a('string').and.not.equal('');

    // The in-process harness has no workers: start one process, as an operator would.
    const worker = await startReadyWorker(WEBHOOK_ENV);
    try {
      const [delivery] = await receiver.waitForRequests(1, 20_000);
      expect(await verifies(secret, delivery!)).to.equal(true);
      const deliveries = JSON.parse((await cli('webhook', 'deliveries', ...scopeArgs(), '--status', 'delivered')).stdout).deliveries;
      expect(deliveries).to.have.length(1);
      expect(deliveries[0]).to.include({ event_id: first, status: 'delivered', attempts: 1, last_status_code: 200, next_attempt_at: null });
      const redelivered = JSON.parse((await cli('webhook', 'redeliver', deliveries[0].delivery_id, ...scopeArgs())).stdout);
      expect(redelivered).to.deep.equal({ ok: true, delivery_id: deliveries[0].delivery_id });
      const [, repeat] = await receiver.waitForRequests(2, 20_000);
      expect(repeat!.body).to.equal(delivery!.body);

      // Disabled: a new resolution waits, pending, and nothing is sent.
      expect(JSON.parse((await cli('webhook', 'disable', ...scopeArgs())).stdout)).to.deep.equal({ ok: true });
      await cli('review', 'resolve', second, ...scopeArgs(), '--resolution', 'approved');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(receiver.requests).to.have.length(2);
      const pending = JSON.parse((await cli('webhook', 'deliveries', ...scopeArgs(), '--status', 'pending')).stdout).deliveries;
      expect(pending.map((d: { event_id: string }) => d.event_id)).to.deep.equal([second]);
      // Its next look waits a minute, behind every delivery that can be sent.
      const waiting = await until(
        'the waiting delivery to be looked at again later',
        async () => {
          const { rows } = await h.deps.db.query(
            `SELECT priority, start_after > now() + interval '30 seconds' AS later FROM pgboss.job
            WHERE name = 'webhook-delivery' AND state = 'created' AND data->>'deliveryId' = $1`,
            [pending[0].delivery_id],
          );
          return rows[0];
        },
        10_000,
      );
      expect(waiting).to.deep.equal({ priority: -1, later: true });
    } finally {
      await worker.stop();
    }
  });

  it('sends a new delivery at once behind a backlog of 400 due jobs, to a worker started after the resolution', async () => {
    const { secret } = await setWebhook(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, `${receiver.url}/in`);
    // Due jobs queued before it, of deliveries that no longer exist (each ends at once): a pg-boss
    // poller alone takes one job per half second, so four of them would need 50 s for these.
    const gone = Array.from({ length: 400 }, (_, i) => ({
      name: QUEUES.webhookDelivery.name,
      data: { deliveryId: `whd_gone_${Date.now()}_${i}`, attempt: 1 },
    }));
    await h.deps.boss.insert(gone, { db: { executeSql: (text, values) => h.deps.db.query(text, values) } });
    const eventId = await aReview();
    await resolveReview(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, { eventId, resolution: 'denied', resolvedBy: 'test' });
    // Started after the resolution, the worker missed its NOTIFY: it must find the job itself.
    const worker = await startReadyWorker(WEBHOOK_ENV);
    try {
      const [delivery] = await receiver.waitForRequests(1, 15_000);
      expect(await verifies(secret, delivery!)).to.equal(true);
      expect(JSON.parse(delivery!.body).event_id).to.equal(eventId);
      await until(
        'the backlog to be gone',
        async () => {
          const { rows } = await h.deps.db.query(
            "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-delivery' AND state = 'created' AND data->>'deliveryId' LIKE 'whd_gone_%'",
          );
          return rows[0].n === 0 ? true : undefined;
        },
        15_000,
      );
    } finally {
      await worker.stop();
    }
  });

  it('delivers after the worker process is killed in the middle of a delivery and restarted', async () => {
    const { secret } = await setWebhook(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, `${receiver.url}/in`);
    // The first request is held; the worker dies while waiting for the answer.
    receiver.respondWith(() => ({ status: 200, delayMs: 60_000 }));
    const env = { ...WEBHOOK_ENV, JOB_MAINTENANCE_SECONDS: '1' };
    const first = await startReadyWorker(env);
    const eventId = await aReview();
    const { deliveryId } = await resolveReview(
      h.deps,
      { tenantId: h.tenant.tenantId, mode: 'test' },
      { eventId, resolution: 'denied', resolvedBy: 'test' },
    );
    await receiver.waitForRequests(1, 20_000);
    await first.kill();
    receiver.respondWith(() => ({ status: 200 }));
    const second = await startReadyWorker(env);
    try {
      const [, retried] = await receiver.waitForRequests(2, 40_000);
      expect(retried!.headers['doorman-delivery-id']).to.equal(deliveryId);
      expect(await verifies(secret, retried!)).to.equal(true);
      await until(
        'the delivery to be recorded as delivered',
        async () => {
          const { rows } = await h.deps.db.query('SELECT status, attempts FROM webhook_deliveries WHERE id = $1', [deliveryId]);
          return rows[0].status === 'delivered' ? rows[0] : undefined;
        },
        20_000,
      );
    } finally {
      await second.stop();
    }
  });
});
