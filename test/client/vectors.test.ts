// The shared test vectors (clients/test-vectors/), which the Python and Go clients' suites read
// too: the TypeScript client verifies every webhook vector, reads every verdict answer and meets
// every error answer served by a real loopback server exactly as the vector says. The vectors'
// signatures are the server's own signer's, and the files are what their generator makes.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { doormanClient, DoormanError, type FailedOpen, type Screened } from '../../clients/typescript/dist/doorman-client.js';
import { verifyWebhook, WebhookVerificationError } from '../../clients/typescript/dist/verify-webhook.js';
import { signatureOf } from '../../src/webhooks/webhook-signature.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { aSignup } from '../support/verdict-harness.js';

const VECTORS = path.join('clients', 'test-vectors');
const read = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(VECTORS, file), 'utf8')) as T;

type Headers = Record<string, string | string[]>;
interface WebhookCase {
  name: string;
  body: string;
  headers: Headers;
  secrets: string[];
  expect: { ok: true; type: string; known: boolean; payload?: object } | { ok: false; error: string };
}
interface VerdictCase {
  name: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  expect:
    | {
        ok: true;
        id: string;
        verdict: string;
        policy_version: string;
        reason_codes: string[];
        recommended_action: string | null;
        degraded: string[];
        passes_through: Record<string, unknown>;
      }
    | { ok: false; fail_open_reason: string };
}
interface ErrorCase {
  name: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  expect: {
    status: number;
    code: string | null;
    retryable: boolean;
    retry_after_ms: number | null;
    issues?: Array<{ path: string; message: string }>;
    attempts: number;
    screen: { outcome: 'throw' } | { outcome: 'fail_open'; reason: string };
  };
}

const headerOf = (headers: Headers, name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
const KEY = 'sk_test_vectors';

describe('client: the shared test vectors', function () {
  this.timeout(120_000);

  it('are what clients/test-vectors/generate.mjs makes', async () => {
    await promisify(execFile)('node', [path.join(VECTORS, 'generate.mjs'), '--check']);
  });

  describe('webhooks.json', () => {
    const { cases } = read<{ cases: WebhookCase[] }>('webhooks.json');
    it('holds every failure the client reports, rotations and a type it does not know', () => {
      const outcomes = new Set(cases.map((c) => (c.expect.ok ? (c.expect.known ? 'known' : 'unknown') : c.expect.error)));
      expect([...outcomes].sort()).to.deep.equal(
        ['invalid_payload', 'known', 'malformed_signature', 'missing_signature', 'no_secret', 'signature_mismatch', 'unknown'].sort(),
      );
    });
    for (const c of cases) {
      it(c.name, () => {
        const header = headerOf(c.headers, 'service-signature');
        let outcome: unknown;
        try {
          const payload = verifyWebhook(c.body, header, c.secrets);
          outcome = payload === null ? { ok: true, known: false } : { ok: true, known: true, type: payload.type, payload };
        } catch (err) {
          if (!(err instanceof WebhookVerificationError)) throw err;
          outcome = { ok: false, error: err.reason };
        }
        const { expect: want } = c;
        expect(outcome).to.deep.equal(
          want.ok ? (want.known ? { ok: true, known: true, type: want.type, payload: want.payload } : { ok: true, known: false }) : want,
        );
        // A signature that verifies is the one the server's own signer makes for that secret.
        if (want.ok) {
          const signatures = [header ?? []].flat().join(' ').trim().split(/\s+/);
          const made = c.secrets.filter(Boolean).map((secret) => signatureOf(secret, c.body).toLowerCase());
          expect(signatures.some((s) => made.includes(s.toLowerCase()))).to.equal(true);
        }
      });
    }
  });

  describe('verdict-responses.json', () => {
    const { cases } = read<{ cases: VerdictCase[] }>('verdict-responses.json');
    for (const c of cases) {
      it(c.name, async () => {
        const standIn = await startHttpStandIn(() => ({ status: c.status, headers: c.headers, body: c.body }));
        try {
          const doorman = doormanClient({ secretKey: KEY, baseUrl: standIn.url, maxRetries: 0 });
          const result = await doorman.screen(aSignup() as never);
          if (!c.expect.ok) {
            expect(result.failedOpen && result.reason).to.equal(c.expect.fail_open_reason);
            return;
          }
          if (result.failedOpen) expect.fail(`failed open: ${result.error.message}`);
          const screened = result as Screened & Record<string, unknown>;
          expect({
            id: screened.id,
            verdict: screened.verdict,
            policy_version: screened.policy_version,
            reason_codes: screened.reasons.map((r) => r.code),
            recommended_action: screened.recommended_action ?? null,
            degraded: screened.degraded,
          }).to.deep.equal(strip(c.expect));
          for (const [field, value] of Object.entries(c.expect.passes_through)) expect(screened[field], field).to.deep.equal(value);
          // The reasons' details come through as sent.
          expect(screened.reasons).to.deep.equal((JSON.parse(c.body) as { reasons: unknown }).reasons);
        } finally {
          await standIn.close();
        }
      });
    }
  });

  describe('errors.json', () => {
    const { cases } = read<{ cases: ErrorCase[] }>('errors.json');
    for (const c of cases) {
      it(c.name, async () => {
        const standIn = await startHttpStandIn(() => ({ status: c.status, headers: c.headers, body: c.body }));
        try {
          const doorman = doormanClient({ secretKey: KEY, baseUrl: standIn.url, maxRetries: 2, screenTimeoutMs: 5000 });
          const strict = await doorman.screen(aSignup() as never, { failOpen: false }).then(
            () => expect.fail('answered'),
            (err: unknown) => err,
          );
          if (!(strict instanceof DoormanError)) throw strict;
          expect({
            status: strict.status,
            code: strict.code ?? null,
            retryable: strict.retryable,
            retry_after_ms: strict.retryAfterMs ?? null,
            attempts: strict.attempts,
            requestId: strict.requestId,
          }).to.deep.equal({
            status: c.expect.status,
            code: c.expect.code,
            retryable: c.expect.retryable,
            retry_after_ms: c.expect.retry_after_ms,
            attempts: c.expect.attempts,
            requestId: headerOf(c.headers, 'x-request-id'),
          });
          expect(strict.kind).to.equal('response');
          if (c.expect.issues) expect(strict.issues).to.deep.equal(c.expect.issues);
          // Every retry sent the same key and the same bytes.
          expect(new Set(standIn.requests.map((r) => r.headers['idempotency-key'])).size).to.equal(1);
          expect(new Set(standIn.requests.map((r) => r.body)).size).to.equal(1);

          const opened = await doorman.screen(aSignup() as never, { maxRetries: 0 }).then(
            (result) => result,
            (err: unknown) => err,
          );
          if (c.expect.screen.outcome === 'throw') {
            expect(opened).to.be.instanceOf(DoormanError);
          } else {
            expect((opened as FailedOpen).failedOpen).to.equal(true);
            expect((opened as FailedOpen).reason).to.equal(c.expect.screen.reason);
            expect((opened as FailedOpen).verdict).to.equal('allow');
          }
        } finally {
          await standIn.close();
        }
      });
    }
  });
});

function strip(expected: VerdictCase['expect'] & { ok: true }) {
  const { ok: _ok, passes_through: _through, ...rest } = expected;
  return rest;
}
