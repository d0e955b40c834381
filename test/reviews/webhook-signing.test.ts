// Each delivery attempt is signed with the secrets valid when it is sent: the bytes
// stay those of the resolution, but a retry after a rotation also verifies with the new secret,
// and after `webhook set --revoke-previous` only the new secret signs, earlier previous ones
// included. Attempts are run one by one through the delivery job's own handler.
import { expect } from 'chai';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { deliverWebhook } from '../../src/webhooks/deliver-webhook.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { doorman } from '../support/cli-runner.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { aSignup, IPS, verdictHarness } from '../support/verdict-harness.js';
import { verifies, WEBHOOK_ENV } from '../support/webhook-receiver.js';

describe('webhook signatures, attempt by attempt', function () {
  this.timeout(60_000);

  it('signs each attempt with the secrets valid then: both during an overlap, only the new one after a revocation', async () => {
    // The attempts are this test's to make: the retries each failed attempt queues are due on the
    // production schedule (5 s and more), after this test has made the attempt itself, so no
    // worker of another test on the same database sends one first.
    const h = await verdictHarness({ ...WEBHOOK_ENV, WEBHOOK_RETRY_UNIT_MS: '1000' });
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const receiver = await startHttpStandIn(() => ({ status: 500 }));
    try {
      const url = `${receiver.url}/hooks`;
      const first = (await setWebhook(h.deps, scope, url)).secret;
      const review = await h.verdict(aSignup({ ip: IPS.proxy }));
      const { deliveryId } = await resolveReview(h.deps, scope, { eventId: review.body.id, resolution: 'denied', resolvedBy: 'test' });

      await deliverWebhook(h.deps, { deliveryId, attempt: 1 });
      const second = (await setWebhook(h.deps, scope, url)).secret;
      await deliverWebhook(h.deps, { deliveryId, attempt: 2 });
      const third = (await setWebhook(h.deps, scope, url)).secret;
      await deliverWebhook(h.deps, { deliveryId, attempt: 3 });
      // The third secret leaked: a fourth revokes every earlier one, through the CLI an operator uses.
      const cli = await doorman(
        ['--json', 'webhook', 'set', '--tenant', scope.tenantId, '--mode', 'test', '--url', url, '--revoke-previous'],
        { WEBHOOK_ALLOW_PRIVATE: 'true' },
      );
      expect(cli.code, cli.stderr).to.equal(0);
      const fourth = JSON.parse(cli.stdout).secret as string;
      await deliverWebhook(h.deps, { deliveryId, attempt: 4 });

      const attempts = await receiver.waitForRequests(4, 10_000);
      expect(new Set(attempts.map((a) => a.body)).size, 'the same bytes every time').to.equal(1);
      const signedBy = async (secret: string) => Promise.all(attempts.map((a) => verifies(secret, a)));
      expect(await signedBy(first)).to.deep.equal([true, true, true, false]);
      expect(await signedBy(second)).to.deep.equal([false, true, true, false]);
      expect(await signedBy(third)).to.deep.equal([false, false, true, false]);
      expect(await signedBy(fourth)).to.deep.equal([false, false, false, true]);
      expect(String(attempts[3]!.headers['service-signature']).split(' ')).to.have.length(1);
    } finally {
      await receiver.close();
    }
  });
});
