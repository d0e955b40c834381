// Writes the shared test vectors (webhooks.json, verdict-responses.json, errors.json) that the
// TypeScript, Python and Go clients' suites all read, so the three cannot drift apart. The
// webhook signatures are computed here with fixed secrets; the TypeScript suite also checks each
// against the server's own signer. Deterministic: running it again writes the same bytes, and
// `--check` exits 1 when a checked-in file differs from what this script makes.
//   node clients/test-vectors/generate.mjs [--check]
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

const sign = (secret, body) => `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
const header = (secrets, body) => secrets.map((s) => sign(s, body)).join(' ');

const OLD = 'whsec_4NcWvQ0o3uVbGkq2H8tJpX1yZr6mLd9aEfSi7TgBwCk';
const NEW = 'whsec_Rt5hY2pLx8QnVz3KcW0sJg6uFb1mDe9aTo4iHyGlNqE';
const WRONG = 'whsec_wrongwrongwrongwrongwrongwrongwrongwrong00';

// A payload as the server writes it (src/reviews/resolve-review.ts: fixed key order, additive
// fields after the contract's).
const denied = {
  type: 'review.resolved',
  event_id: 'evt_01JD7Q6W3V9M2Y8K4T5R1N0PXA',
  resolution: 'denied',
  final_verdict: 'block',
  resolved_at: '2026-11-24T22:03:17.412Z',
  external_user_id: 'user_8f14e45f',
  email: 'ada@example.com',
  delivery_id: 'whd_01JD7Q7F2C8B6N4M1K9H3G5D2S',
  policy_version: '2026-11-20.4',
};
const approved = {
  type: 'review.resolved',
  event_id: 'evt_01JD7Q9A1B2C3D4E5F6G7H8J9K',
  resolution: 'approved',
  final_verdict: 'allow',
  resolved_at: '2026-11-25T08:15:00.000Z',
  delivery_id: 'whd_01JD7QA0Z9Y8X7W6V5T4S3R2Q1',
  policy_version: '2026-11-20.4',
};
const deniedBody = JSON.stringify(denied);
const approvedBody = JSON.stringify(approved);
// Non-ASCII bytes: the signature covers the UTF-8 bytes as sent.
const unicode = { ...denied, email: 'zoë.ünal@exämple.com', external_user_id: 'usuário_7' };
const unicodeBody = JSON.stringify(unicode);
const futureBody = JSON.stringify({
  type: 'account.flagged',
  event_id: 'evt_01JD7QB0000000000000000000',
  flagged_at: '2026-11-26T00:00:00.000Z',
});
const notJson = 'type=review.resolved&event_id=evt_1';
const noType = JSON.stringify({ event_id: 'evt_01JD7Q6W3V9M2Y8K4T5R1N0PXA', resolution: 'denied' });
const tampered = deniedBody.replace('"denied"', '"approved"');

const ok = (payload) => ({ ok: true, type: payload.type, known: true, payload });
const fails = (error) => ({ ok: false, error });

const webhooks = {
  description:
    'Service-Signature verification (contract §6.1). body: the exact raw body (UTF-8). headers: as received, names in any case, a value or several. secrets: what the receiver holds. expect: the verified payload, a verified body of a type the client does not know (answer 2xx, ignore it), or the failure.',
  cases: [
    {
      name: 'one secret, one signature',
      body: deniedBody,
      headers: { 'Service-Signature': sign(OLD, deniedBody) },
      secrets: [OLD],
      expect: ok(denied),
    },
    {
      name: 'an approval, header name in lower case',
      body: approvedBody,
      headers: { 'service-signature': sign(OLD, approvedBody) },
      secrets: [OLD],
      expect: ok(approved),
    },
    {
      name: 'rotation: signed with the new and the old secret, receiver still holds only the old',
      body: deniedBody,
      headers: { 'Service-Signature': header([NEW, OLD], deniedBody) },
      secrets: [OLD],
      expect: ok(denied),
    },
    {
      name: 'rotation: receiver already holds only the new secret',
      body: deniedBody,
      headers: { 'Service-Signature': header([NEW, OLD], deniedBody) },
      secrets: [NEW],
      expect: ok(denied),
    },
    {
      name: 'rotation: receiver holds both secrets',
      body: deniedBody,
      headers: { 'Service-Signature': header([NEW, OLD], deniedBody) },
      secrets: [NEW, OLD],
      expect: ok(denied),
    },
    {
      name: 'rotation over: signed with the new secret only, receiver holds both',
      body: deniedBody,
      headers: { 'Service-Signature': sign(NEW, deniedBody) },
      secrets: [OLD, NEW],
      expect: ok(denied),
    },
    {
      name: 'the header arrives as two values',
      body: deniedBody,
      headers: { 'Service-Signature': [sign(NEW, deniedBody), sign(OLD, deniedBody)] },
      secrets: [OLD],
      expect: ok(denied),
    },
    {
      name: 'upper-case hex',
      body: deniedBody,
      headers: { 'Service-Signature': `sha256=${sign(OLD, deniedBody).slice(7).toUpperCase()}` },
      secrets: [OLD],
      expect: ok(denied),
    },
    {
      name: 'extra spaces around and between signatures',
      body: deniedBody,
      headers: { 'Service-Signature': `  ${sign(NEW, deniedBody)}    ${sign(OLD, deniedBody)}  ` },
      secrets: [OLD],
      expect: ok(denied),
    },
    {
      name: 'a malformed signature beside a valid one',
      body: deniedBody,
      headers: { 'Service-Signature': `sha256=deadbeef ${sign(OLD, deniedBody)}` },
      secrets: [OLD],
      expect: ok(denied),
    },
    {
      name: 'non-ASCII body: the signature covers its UTF-8 bytes',
      body: unicodeBody,
      headers: { 'Service-Signature': sign(OLD, unicodeBody) },
      secrets: [OLD],
      expect: ok(unicode),
    },
    {
      name: 'a type the client does not know yet, correctly signed',
      body: futureBody,
      headers: { 'Service-Signature': sign(OLD, futureBody) },
      secrets: [OLD],
      expect: { ok: true, type: 'account.flagged', known: false },
    },
    {
      name: 'tampered body (approved for denied)',
      body: tampered,
      headers: { 'Service-Signature': sign(OLD, deniedBody) },
      secrets: [OLD],
      expect: fails('signature_mismatch'),
    },
    {
      name: 'signed with another secret',
      body: deniedBody,
      headers: { 'Service-Signature': sign(WRONG, deniedBody) },
      secrets: [OLD],
      expect: fails('signature_mismatch'),
    },
    {
      name: 'a well-formed signature that matches nothing, beside a malformed one',
      body: deniedBody,
      headers: { 'Service-Signature': `sha256=deadbeef ${sign(WRONG, deniedBody)}` },
      secrets: [OLD],
      expect: fails('signature_mismatch'),
    },
    {
      name: 'malformed: a short hex string',
      body: deniedBody,
      headers: { 'Service-Signature': 'sha256=deadbeef' },
      secrets: [OLD],
      expect: fails('malformed_signature'),
    },
    {
      name: 'malformed: another scheme',
      body: deniedBody,
      headers: { 'Service-Signature': `v1=${sign(OLD, deniedBody).slice(7)}` },
      secrets: [OLD],
      expect: fails('malformed_signature'),
    },
    {
      name: 'malformed: the hex alone, no scheme',
      body: deniedBody,
      headers: { 'Service-Signature': sign(OLD, deniedBody).slice(7) },
      secrets: [OLD],
      expect: fails('malformed_signature'),
    },
    {
      name: 'malformed: not hex',
      body: deniedBody,
      headers: { 'Service-Signature': `sha256=${'z'.repeat(64)}` },
      secrets: [OLD],
      expect: fails('malformed_signature'),
    },
    {
      name: 'no Service-Signature header',
      body: deniedBody,
      headers: { 'Content-Type': 'application/json' },
      secrets: [OLD],
      expect: fails('missing_signature'),
    },
    {
      name: 'an empty Service-Signature header',
      body: deniedBody,
      headers: { 'Service-Signature': '   ' },
      secrets: [OLD],
      expect: fails('missing_signature'),
    },
    {
      name: 'no secret to verify with',
      body: deniedBody,
      headers: { 'Service-Signature': sign(OLD, deniedBody) },
      secrets: [],
      expect: fails('no_secret'),
    },
    {
      name: 'only empty secrets',
      body: deniedBody,
      headers: { 'Service-Signature': sign(OLD, deniedBody) },
      secrets: [''],
      expect: fails('no_secret'),
    },
    {
      name: 'signed, but not JSON',
      body: notJson,
      headers: { 'Service-Signature': sign(OLD, notJson) },
      secrets: [OLD],
      expect: fails('invalid_payload'),
    },
    {
      name: 'signed JSON without a type',
      body: noType,
      headers: { 'Service-Signature': sign(OLD, noType) },
      secrets: [OLD],
      expect: fails('invalid_payload'),
    },
  ],
};

const verdict = (body, expect, name) => ({
  name,
  status: 200,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
  expect,
});
const verdictResponses = {
  description:
    'Answers to POST /v1/verdict (contract §2.3, §2.4). expect: what screen() returns, with unknown codes and fields passed through, or the fail-open reason when the 200 is not a verdict.',
  cases: [
    verdict(
      { id: 'evt_01JD80A', verdict: 'allow', reasons: [], policy_version: '2026-11-20.4' },
      {
        ok: true,
        id: 'evt_01JD80A',
        verdict: 'allow',
        policy_version: '2026-11-20.4',
        reason_codes: [],
        recommended_action: null,
        degraded: [],
        passes_through: {},
      },
      'a plain allow',
    ),
    verdict(
      {
        id: 'evt_01JD80B',
        verdict: 'review',
        reasons: [{ code: 'identity_cluster', detail: { linked_accounts: 4 } }, { code: 'proxy_ip' }],
        policy_version: '2026-11-20.4',
      },
      {
        ok: true,
        id: 'evt_01JD80B',
        verdict: 'review',
        policy_version: '2026-11-20.4',
        reason_codes: ['identity_cluster', 'proxy_ip'],
        recommended_action: null,
        degraded: [],
        passes_through: {},
      },
      'a review with known reasons',
    ),
    verdict(
      {
        id: 'evt_01JD80C',
        verdict: 'block',
        reasons: [{ code: 'velocity_new_thing', detail: { window: '10m', count: 12, strict: true } }, { code: 'blocklisted' }],
        policy_version: '2027-01-02.1',
        recommended_action: 'verify_phone',
        risk_band: 'high',
        links: { cluster: 'cl_9', accounts: [1, 2] },
      },
      {
        ok: true,
        id: 'evt_01JD80C',
        verdict: 'block',
        policy_version: '2027-01-02.1',
        reason_codes: ['velocity_new_thing', 'blocklisted'],
        recommended_action: 'verify_phone',
        degraded: [],
        passes_through: { risk_band: 'high', links: { cluster: 'cl_9', accounts: [1, 2] } },
      },
      'unknown reason code, unknown recommended action and unknown fields pass through',
    ),
    verdict(
      {
        id: 'evt_01JD80D',
        verdict: 'allow',
        reasons: [{ code: 'timeout_failopen', detail: { sources: 'lists, graph' } }],
        policy_version: '2026-11-20.4',
        recommended_action: 'challenge',
      },
      {
        ok: true,
        id: 'evt_01JD80D',
        verdict: 'allow',
        policy_version: '2026-11-20.4',
        reason_codes: ['timeout_failopen'],
        recommended_action: 'challenge',
        degraded: ['graph', 'lists'],
        passes_through: {},
      },
      'decided without the graph and the lists: degraded, sorted',
    ),
    verdict(
      {
        id: 'evt_01JD80E',
        verdict: 'review',
        reasons: [{ code: 'partial_enrichment', detail: { sources: 'email' } }, { code: 'timeout_failopen' }, { code: 'datacenter_ip' }],
        policy_version: '2026-11-20.4',
      },
      {
        ok: true,
        id: 'evt_01JD80E',
        verdict: 'review',
        policy_version: '2026-11-20.4',
        reason_codes: ['partial_enrichment', 'timeout_failopen', 'datacenter_ip'],
        recommended_action: null,
        degraded: ['email', 'unknown'],
        passes_through: {},
      },
      'a degraded reason without sources counts as unknown',
    ),
    {
      name: 'a 200 that is not JSON (a proxy page)',
      status: 200,
      headers: { 'Content-Type': 'text/html' },
      body: '<html><body>Welcome</body></html>',
      expect: { ok: false, fail_open_reason: 'invalid_response' },
    },
    {
      name: 'a 200 without a verdict',
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'evt_01JD80F', status: 'ok' }),
      expect: { ok: false, fail_open_reason: 'invalid_response' },
    },
    {
      name: 'a 200 whose reasons are not a list',
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'evt_01JD80G', verdict: 'allow', reasons: 'none', policy_version: '2026-11-20.4' }),
      expect: { ok: false, fail_open_reason: 'invalid_response' },
    },
  ],
};

const error = (name, status, headers, body, expect) => ({
  name,
  status,
  headers: { 'Content-Type': 'application/json', 'X-Request-Id': `req_${status}`, ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
  expect: { status, ...expect },
});
const throws = { outcome: 'throw' };
const failOpen = (reason) => ({ outcome: 'fail_open', reason });
const issues = [
  { path: '/ip', message: 'ip is required for signup' },
  { path: '/colour', message: 'must NOT have additional properties' },
];
const errors = {
  description:
    'Error answers (contract §7): the stand-in answers the vector to every request. expect: the error the client reports, how many requests screen() sends with maxRetries 2 and a 5000 ms budget, and what screen() does with fail-open on.',
  cases: [
    error(
      '400 invalid_request names the fields',
      400,
      {},
      { error: 'invalid_request', message: 'The request does not match the contract.', details: { issues } },
      { code: 'invalid_request', retryable: false, retry_after_ms: null, issues, attempts: 1, screen: throws },
    ),
    error(
      '401 unauthorized',
      401,
      {},
      { error: 'unauthorized', message: 'Unknown key.' },
      { code: 'unauthorized', retryable: false, retry_after_ms: null, attempts: 1, screen: throws },
    ),
    error(
      '404 not_found (a wrong path in the base URL)',
      404,
      {},
      { error: 'not_found', message: 'No such route.' },
      { code: 'not_found', retryable: false, retry_after_ms: null, attempts: 1, screen: throws },
    ),
    error(
      '409 idempotency_conflict',
      409,
      {},
      { error: 'idempotency_conflict', message: 'The key was used with another body.' },
      { code: 'idempotency_conflict', retryable: false, retry_after_ms: null, attempts: 1, screen: throws },
    ),
    error(
      '409 conflict',
      409,
      {},
      { error: 'conflict', message: 'Another user is bound.' },
      { code: 'conflict', retryable: false, retry_after_ms: null, attempts: 1, screen: throws },
    ),
    error(
      '422 with a code this client does not know',
      422,
      {},
      { error: 'unprocessable_future', message: 'A later service.', details: { hint: 'x' } },
      { code: 'unprocessable_future', retryable: false, retry_after_ms: null, attempts: 1, screen: throws },
    ),
    error(
      '429 rate_limited with retry-after 1',
      429,
      { 'Retry-After': '1', 'X-RateLimit-Limit': '600', 'X-RateLimit-Remaining': '0' },
      { error: 'rate_limited', message: 'Over the rate limit.' },
      { code: 'rate_limited', retryable: true, retry_after_ms: 1000, attempts: 3, screen: failOpen('rate_limited') },
    ),
    error(
      '429 whose retry-after ends past the budget: no retry',
      429,
      { 'Retry-After': '30' },
      { error: 'rate_limited', message: 'Over the rate limit.' },
      { code: 'rate_limited', retryable: true, retry_after_ms: 30000, attempts: 1, screen: failOpen('rate_limited') },
    ),
    error(
      '429 with retry-after as an HTTP date in the past',
      429,
      { 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' },
      { error: 'rate_limited', message: 'Over the rate limit.' },
      { code: 'rate_limited', retryable: true, retry_after_ms: 0, attempts: 3, screen: failOpen('rate_limited') },
    ),
    error(
      '500 internal',
      500,
      {},
      { error: 'internal', message: 'Something failed.' },
      { code: 'internal', retryable: true, retry_after_ms: null, attempts: 3, screen: failOpen('server_error') },
    ),
    error(
      '500 with a code this client does not know',
      500,
      {},
      { error: 'storage_migrating', message: 'A later service.' },
      { code: 'storage_migrating', retryable: true, retry_after_ms: null, attempts: 3, screen: failOpen('server_error') },
    ),
    error(
      '503 warming up with retry-after 1',
      503,
      { 'Retry-After': '1' },
      { error: 'internal', message: 'Warming up.' },
      { code: 'internal', retryable: true, retry_after_ms: 1000, attempts: 3, screen: failOpen('server_error') },
    ),
    error('502 from a proxy, not JSON', 502, { 'Content-Type': 'text/html' }, '<html><body>502 Bad Gateway</body></html>', {
      code: null,
      retryable: true,
      retry_after_ms: null,
      attempts: 3,
      screen: failOpen('server_error'),
    }),
    error('504 with an empty body', 504, { 'Content-Type': 'text/plain' }, '', {
      code: null,
      retryable: true,
      retry_after_ms: null,
      attempts: 3,
      screen: failOpen('server_error'),
    }),
  ],
};

const files = { 'webhooks.json': webhooks, 'verdict-responses.json': verdictResponses, 'errors.json': errors };
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, value] of Object.entries(files)) {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const target = path.join(here, file);
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {}
  if (current === text) continue;
  if (check) {
    console.error(`clients/test-vectors/${file} is out of date: run node clients/test-vectors/generate.mjs`);
    stale += 1;
  } else {
    writeFileSync(target, text);
    console.error(`[vectors] wrote ${file}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
