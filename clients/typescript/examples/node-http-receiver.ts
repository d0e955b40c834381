// The same receiver on plain node:http: read the body as bytes (bounded), verify, answer 204,
// then act. No framework, no body parser in the way of the raw bytes.
// Run it: DOORMAN_WEBHOOK_SECRETS="whsec_new whsec_old" PORT=3000 node --import tsx examples/node-http-receiver.ts
import { createServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { verifyWebhook, WebhookVerificationError, type ReviewResolvedWebhook } from '@doorman/client/webhooks';

const MAX_BODY_BYTES = 256 * 1024;

export function webhookServer(secrets: string[], revokeAccount: (event: ReviewResolvedWebhook) => void): Server {
  return createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks/doorman') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end();
        return;
      }
      chunks.push(chunk as Buffer);
    }
    let event: ReviewResolvedWebhook | null;
    try {
      event = verifyWebhook(Buffer.concat(chunks), req.headers['service-signature'], secrets);
    } catch (err) {
      res.writeHead(err instanceof WebhookVerificationError ? 401 : 500).end();
      return;
    }
    res.writeHead(204).end();
    if (event?.resolution === 'denied') setImmediate(revokeAccount, event);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secrets = (process.env.DOORMAN_WEBHOOK_SECRETS ?? '').split(/[\s,]+/).filter(Boolean);
  webhookServer(secrets, (event) => console.log('revoke', event.external_user_id ?? event.email, 'event', event.event_id)).listen(
    Number(process.env.PORT ?? 3000),
  );
}
