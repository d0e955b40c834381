// A small HTTP client for tests against Doorman processes (fault and load tests): JSON in and
// out, a bounded wait, and the time each call took. Network failures are answers too.
import { randomUUID } from 'node:crypto';

export interface ApiResponse {
  // 0 when no HTTP answer came (refused, reset, timed out).
  status: number;
  body: Record<string, any>;
  ms: number;
  startedAt: number;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const startedAt = Date.now();
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(options.key && { authorization: `Bearer ${options.key}` }),
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let body: Record<string, any>;
    try {
      body = JSON.parse(text) as Record<string, any>;
    } catch {
      body = { text };
    }
    return { status: res.status, body, ms: Date.now() - startedAt, startedAt };
  } catch (err) {
    return { status: 0, body: { network: String(err) }, ms: Date.now() - startedAt, startedAt };
  }
}

export const api = (base: string, key: string) => ({
  verdict: (body: object, idempotencyKey: string = randomUUID(), timeoutMs?: number) =>
    call(base, 'POST', '/v1/verdict', { key, body, headers: { 'idempotency-key': idempotencyKey }, timeoutMs }),
  event: (id: string) => call(base, 'GET', `/v1/events/${id}`, { key }),
  health: () => call(base, 'GET', '/health', { timeoutMs: 10_000 }),
});

// Reasons of a verdict response, and the sources named by a missing-signal reason.
export const reasonCodes = (res: ApiResponse): string[] => ((res.body.reasons ?? []) as { code: string }[]).map((r) => r.code);
export function missingSources(res: ApiResponse, code: 'timeout_failopen' | 'partial_enrichment'): string[] {
  const reason = ((res.body.reasons ?? []) as { code: string; detail?: { sources?: string } }[]).find((r) => r.code === code);
  return reason?.detail?.sources?.split(',') ?? [];
}
