// verifyWebhook(): checks a delivery's Service-Signature against the exact raw body before
// anything parses it (contract §6.1), in constant time, accepting the body when any of the
// header's `sha256=` signatures (several during a secret rotation) matches any secret you hold.
// Node's crypto (createHmac, timingSafeEqual) does the cryptography.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ReviewResolvedWebhook } from './contract-types.js';

export type { ReviewResolvedWebhook } from './contract-types.js';

// In the order they are checked: no secret given; no Service-Signature header (or an empty one);
// a header that holds no well-formed `sha256=<64 hex>` (such as `sha256=deadbeef`); no signature
// matches; the signed body is not a JSON object with a string `type`.
export type WebhookFailure = 'no_secret' | 'missing_signature' | 'malformed_signature' | 'signature_mismatch' | 'invalid_payload';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

// Doorman signs with every secret still valid (the current one first), so a header carries one
// signature per rotation within the overlap; past this many, the oldest are not looked at.
const MAX_SIGNATURES = 32;
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

// Returns the verified `review.resolved` payload, or null for a verified delivery of a type this
// client does not know yet (answer it 2xx and ignore it: Doorman retries anything else). Throws
// WebhookVerificationError when the body is not signed by any of `secrets`.
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | readonly string[] | null | undefined,
  secrets: string | readonly string[],
): ReviewResolvedWebhook | null {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError(
      'rawBody must be the request body as received (a string or bytes), not parsed JSON: ' +
        "with Express use express.raw({ type: 'application/json' }) on the webhook route",
    );
  }
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => typeof s === 'string' && s.length > 0);
  if (keys.length === 0) throw new WebhookVerificationError('no_secret', 'no webhook secret (whsec_…) to verify with');
  const header = Array.isArray(signatureHeader) ? signatureHeader.join(' ') : (signatureHeader ?? '');
  const parts = String(header)
    .trim()
    .split(/\s+/)
    .filter((part) => part !== '');
  if (parts.length === 0) throw new WebhookVerificationError('missing_signature', 'no Service-Signature header');
  const candidates = parts
    .slice(0, MAX_SIGNATURES)
    .map((part) => SIGNATURE.exec(part)?.[1])
    .filter((hex): hex is string => hex !== undefined)
    .map((hex) => Buffer.from(hex, 'hex'));
  if (candidates.length === 0) {
    throw new WebhookVerificationError(
      'malformed_signature',
      'the Service-Signature header holds no well-formed signature (sha256= and 64 hex digits)',
    );
  }

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  let verified = false;
  for (const key of keys) {
    const expected = createHmac('sha256', key).update(body).digest();
    // Every pair is compared, each in constant time: the time taken says nothing about which
    // byte differed, or which signature matched.
    for (const candidate of candidates) verified = timingSafeEqual(candidate, expected) || verified;
  }
  if (!verified) throw new WebhookVerificationError('signature_mismatch', 'no signature matches the body with any of the secrets');

  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the signed body is not JSON');
  }
  if (!payload || typeof payload !== 'object' || typeof (payload as { type?: unknown }).type !== 'string') {
    throw new WebhookVerificationError('invalid_payload', 'the signed body has no `type`');
  }
  return (payload as { type: string }).type === 'review.resolved' ? (payload as ReviewResolvedWebhook) : null;
}
