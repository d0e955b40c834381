// verifyWebhook() and the two receiver examples (Express, node:http) against real deliveries:
// real review.resolved webhooks sent by the real pg-boss workers for reviews made through the
// client, including while the secret is rotated and while the receiver holds the wrong secret
// (401, retried by Doorman, delivered once fixed). Octokit's verify is the independent check.
import type { Scope } from '../../src/scope.js';
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { doormanClient } from '../../clients/typescript/dist/doorman-client.js';
import { verifyWebhook, WebhookVerificationError, type ReviewResolvedWebhook } from '../../clients/typescript/dist/verify-webhook.js';
import { webhookApp } from '../../clients/typescript/examples/express-receiver.js';
import { webhookServer } from '../../clients/typescript/examples/node-http-receiver.js';
import type { Deps } from '../../src/deps.js';
import { startWorkers } from '../../src/start-workers.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { signatureOf } from '../../src/webhooks/webhook-signature.js';
import { clientServer } from '../support/client-server.js';
import { aTenant } from '../support/fixtures.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup, IPS } from '../support/verdict-harness.js';

const WORKER_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_UNIT_MS: '10', WEBHOOK_TIMEOUT_MS: '2000' };

async function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/doorman`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('client: webhook verification against real deliveries', function () {
  this.timeout(60_000);
  let deps: Deps;
  let worker: { close(): Promise<void> };
  let serverUrl: string;

  before(async () => {
    deps = testDeps({ ...WORKER_ENV, JOB_MAINTENANCE_SECONDS: '1' });
    worker = await startWorkers(deps);
    serverUrl = (await clientServer()).url;
  });
  after(async () => {
    await worker?.close();
  });

  // Each test has its own tenant: its webhook secrets are its own.
  const aCustomer = async () => {
    const tenant = await aTenant(deps);
    const scope: Scope = { tenantId: tenant.tenantId, mode: 'test' };
    const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: serverUrl });
    // A review made through the client, resolved by a human.
    const resolvedReview = async (resolution: 'approved' | 'denied', externalUserId = `usr_${Date.now()}`) => {
      const result = await doorman.screen(aSignup({ ip: IPS.proxy, external_user_id: externalUserId }) as never, { failOpen: false });
      if (result.failedOpen || result.verdict !== 'review') expect.fail(`expected a review, got ${result.verdict}`);
      const resolved = await resolveReview(deps, scope, { eventId: result.id, resolution, resolvedBy: 'analyst', note: 'client test' });
      return { eventId: result.id, deliveryId: resolved.deliveryId };
    };
    return { scope, resolvedReview };
  };
  const attemptsOf = async (deliveryId: string) =>
    (await deps.db.query('SELECT status_code FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [deliveryId])).rows.map(
      (r) => r.status_code,
    );

  it('the Express receiver verifies a real delivery over the raw bytes and hands over the typed payload', async () => {
    const { scope, resolvedReview } = await aCustomer();
    const got: ReviewResolvedWebhook[] = [];
    const secrets: string[] = [];
    const receiver = await listen(createServer(webhookApp(secrets, (event) => got.push(event))));
    try {
      secrets.push((await setWebhook(deps, scope, receiver.url)).secret);
      const { eventId, deliveryId } = await resolvedReview('denied', 'usr_express');
      const [event] = await until('the receiver to get the event', async () => (got.length > 0 ? got : undefined), 15_000);
      expect(event).to.deep.include({
        type: 'review.resolved',
        event_id: eventId,
        resolution: 'denied',
        final_verdict: 'block',
        external_user_id: 'usr_express',
        delivery_id: deliveryId,
      });
      await until('the delivery to be recorded', async () => ((await attemptsOf(deliveryId)).length > 0 ? true : undefined));
      expect(await attemptsOf(deliveryId)).to.deep.equal([204]);
    } finally {
      await receiver.close();
    }
  });

  it('the node:http receiver verifies with either secret during a rotation, and refuses the wrong one until it is fixed', async () => {
    const { scope, resolvedReview } = await aCustomer();
    const got: ReviewResolvedWebhook[] = [];
    const secrets: string[] = [];
    const receiver = await listen(webhookServer(secrets, (event) => got.push(event)));
    try {
      const old = (await setWebhook(deps, scope, receiver.url)).secret;
      const current = (await setWebhook(deps, scope, receiver.url)).secret;
      // The receiver still holds only the previous secret: the second signature carries it.
      secrets.splice(0, secrets.length, old);
      const first = await resolvedReview('approved');
      await until('the first delivery', async () => ((await attemptsOf(first.deliveryId)).length > 0 ? true : undefined), 15_000);
      // Updated to the new secret only.
      secrets.splice(0, secrets.length, current);
      const second = await resolvedReview('denied');
      await until('the second event', async () => (got.some((e) => e.event_id === second.eventId) ? true : undefined), 15_000);
      // Both verified (204); an approval asks nothing of the receiver, so only the denial was handed over.
      expect(await attemptsOf(first.deliveryId)).to.deep.equal([204]);
      expect(got.map((e) => e.event_id)).to.deep.equal([second.eventId]);
      // A receiver with neither secret answers 401, and Doorman keeps trying until it has one.
      secrets.splice(0, secrets.length, 'whsec_not_this_one');
      const third = await resolvedReview('denied');
      await until('two refused attempts', async () => ((await attemptsOf(third.deliveryId)).length >= 2 ? true : undefined), 15_000);
      secrets.splice(0, secrets.length, current);
      await until('the third event', async () => (got.some((e) => e.event_id === third.eventId) ? true : undefined), 15_000);
      // The worker records the attempt once it has the answer, just after the receiver acted.
      const statuses = await until('the delivered attempt to be recorded', async () => {
        const recorded = await attemptsOf(third.deliveryId);
        return recorded.at(-1) === 204 ? recorded : undefined;
      });
      expect(statuses.slice(0, -1).every((s) => s === 401)).to.equal(true);
      expect(statuses.length, 'refused at least twice, then delivered').to.be.at.least(3);
      expect(got.filter((e) => e.event_id === third.eventId)).to.have.length(1);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a changed byte, a missing or malformed signature, no secret, and parsed JSON; agrees with Octokit on real bytes', async () => {
    const { scope, resolvedReview } = await aCustomer();
    const receiver = await startHttpStandIn(() => ({ status: 204 }));
    try {
      const old = (await setWebhook(deps, scope, `${receiver.url}/hooks`)).secret;
      const current = (await setWebhook(deps, scope, `${receiver.url}/hooks`)).secret;
      const { eventId } = await resolvedReview('denied');
      const [delivery] = await receiver.waitForRequests(1, 15_000);
      const header = String(delivery!.headers['service-signature']);
      expect(header.split(' ')).to.have.length(2);
      for (const secret of [old, current]) {
        expect(verifyWebhook(delivery!.body, header, secret)?.event_id).to.equal(eventId);
        expect(verifyWebhook(Buffer.from(delivery!.body), header.split(' '), ['whsec_other', secret])?.event_id).to.equal(eventId);
        const octokit = await Promise.all(header.split(' ').map((s) => verify(secret, delivery!.body, s)));
        expect(octokit.filter(Boolean), 'Octokit verifies exactly one signature per secret').to.have.length(1);
      }
      const tampered = delivery!.body.replace('"denied"', '"approved"');
      const failures = [
        () => verifyWebhook(tampered, header, [old, current]),
        () => verifyWebhook(delivery!.body, header, 'whsec_other'),
        () => verifyWebhook(delivery!.body, undefined, current),
        () => verifyWebhook(delivery!.body, `sha1=${'0'.repeat(40)} v1,abc`, current),
        () => verifyWebhook(delivery!.body, header, []),
      ].map((fn) => {
        try {
          fn();
          return 'verified';
        } catch (err) {
          return (err as WebhookVerificationError).reason;
        }
      });
      expect(failures).to.deep.equal(['signature_mismatch', 'signature_mismatch', 'missing_signature', 'malformed_signature', 'no_secret']);
      expect(() => verifyWebhook(JSON.parse(delivery!.body), header, current)).to.throw(TypeError, /raw/);

      // Signed bodies that are not a review.resolved: a type from a later Doorman is null (answer
      // 2xx and ignore it); a body that is not JSON is refused.
      const later = JSON.stringify({ type: 'account.flagged', event_id: 'evt_1' });
      expect(verifyWebhook(later, signatureOf(current, later), current)).to.equal(null);
      try {
        verifyWebhook('not json', signatureOf(current, 'not json'), current);
        expect.fail('expected invalid_payload');
      } catch (err) {
        expect((err as WebhookVerificationError).reason).to.equal('invalid_payload');
      }
    } finally {
      await receiver.close();
    }
  });
});
