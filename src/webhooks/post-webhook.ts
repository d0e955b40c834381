// One HTTP attempt at a webhook: POST the frozen bytes, no redirects followed, bounded by one
// timeout (connection, headers and body), connecting only to an address the SSRF guard approved.
// Never throws: refusals, timeouts and connection errors are outcomes the attempt records.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPublicAddress } from './safe-address.js';

export interface PostOutcome {
  statusCode?: number;
  error?: string;
  latencyMs: number;
  // The first 1 KiB of the answer.
  responseBody?: string;
}

const EXCERPT_BYTES = 1024;

export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  o: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Omit<PostOutcome, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, latencyMs: latency() });
    };
    const target = new URL(url);
    // A literal address is connected to without a lookup: check it here.
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (!o.allowPrivate && isIP(literal) && !isPublicAddress(literal)) {
      done({ error: `EWEBHOOKADDRESS: refused: ${literal} is not a public address` });
      return;
    }
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
        lookup: guardedLookup(o.allowPrivate) as unknown as typeof import('node:dns').lookup,
        signal: AbortSignal.timeout(o.timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () =>
          done({ statusCode: res.statusCode, responseBody: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') }),
        );
        res.on('error', (err) => done({ statusCode: res.statusCode, error: err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const message =
        err.name === 'AbortError' || err.name === 'TimeoutError'
          ? `no answer within ${o.timeoutMs} ms`
          : `${err.code ?? 'error'}: ${err.message}`;
      done({ error: message });
    });
    req.end(body);
  });
}
