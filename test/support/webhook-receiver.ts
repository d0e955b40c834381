// What the webhook tests share: the settings that let deliveries reach a receiver on this machine
// quickly, and a receiver's check of a delivery's signature. In a support file, so a test file
// that uses them does not run another file's tests by importing it.
import { verify } from '@octokit/webhooks-methods';
import type { RecordedRequest } from './http-stand-in.js';

export const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_UNIT_MS: '10', WEBHOOK_TIMEOUT_MS: '2000' };

// A receiver's check: any one of the header's signatures verifies with a secret it holds.
export async function verifies(secret: string, req: RecordedRequest): Promise<boolean> {
  const parts = String(req.headers['service-signature'] ?? '').split(' ');
  const results = await Promise.all(parts.map((signature) => verify(secret, req.body, signature).catch(() => false)));
  return results.some(Boolean);
}
