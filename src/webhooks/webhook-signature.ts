// The Service-Signature header (contract §6.1): `sha256=<hex>`, the HMAC-SHA256 of the exact raw
// body keyed with the `whsec_` secret string. During a rotation overlap the header carries one
// signature per valid secret, space-separated, the current secret's first; a receiver accepts
// the body when any of them verifies with a secret it holds.
import { createHmac, randomBytes } from 'node:crypto';

export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export function signatureHeader(secretsCurrentFirst: string[], body: string): string {
  return secretsCurrentFirst.map((secret) => signatureOf(secret, body)).join(' ');
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
