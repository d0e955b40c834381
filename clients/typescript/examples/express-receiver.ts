// An Express receiver for Doorman's webhooks: the raw body goes to verifyWebhook before anything
// parses it; a delivery is answered 204 at once and acted on afterwards (Doorman retries anything
// but a 2xx, so the work must be idempotent: revoking a revoked account is a no-op).
// Run it: DOORMAN_WEBHOOK_SECRETS="whsec_new whsec_old" PORT=3000 node --import tsx examples/express-receiver.ts
import express from 'express';
import { pathToFileURL } from 'node:url';
import { verifyWebhook, WebhookVerificationError, type ReviewResolvedWebhook } from '@doorman/client/webhooks';

export function webhookApp(secrets: string[], revokeAccount: (event: ReviewResolvedWebhook) => void): express.Express {
  const app = express();
  app.post('/webhooks/doorman', express.raw({ type: 'application/json', limit: '256kb' }), (req, res) => {
    let event: ReviewResolvedWebhook | null;
    try {
      event = verifyWebhook(req.body, req.get('service-signature'), secrets);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      res.status(401).send(err.reason);
      return;
    }
    res.sendStatus(204);
    // After answering: denied means revoke (by external_user_id, else email); approved, nothing.
    // null is a signed delivery of a type this client does not know yet: answered, ignored.
    if (event?.resolution === 'denied') setImmediate(revokeAccount, event);
  });
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secrets = (process.env.DOORMAN_WEBHOOK_SECRETS ?? '').split(/[\s,]+/).filter(Boolean);
  webhookApp(secrets, (event) => console.log('revoke', event.external_user_id ?? event.email, 'event', event.event_id)).listen(
    Number(process.env.PORT ?? 3000),
  );
}
