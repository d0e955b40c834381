// The one error the client throws for a call that did not succeed: an answer that is not 2xx
// (status, the contract's `error` code as an open string, `details`), no usable answer at all
// (timeout, network failure, a body that is not the contract's), or a configuration that can
// never work (the host does not resolve, a redirect, a bad TLS certificate). Says whether a retry
// may help.
import type { ErrorBody, ErrorCode, ValidationIssue } from './contract-types.js';

// `configuration`: the same call would fail the same way every time until the configuration is
// fixed, so it is never retried, and screen() fails open on it only when told to
// (`failOpenOnConfigurationError`).
export type FailureKind = 'response' | 'timeout' | 'network' | 'invalid_response' | 'configuration';

export class DoormanError extends Error {
  override readonly name = 'DoormanError';
  readonly kind: FailureKind;
  // Present when Doorman answered.
  readonly status?: number | undefined;
  // The contract's `error`; unknown codes pass through as they are (contract §7).
  readonly code?: ErrorCode | undefined;
  readonly details?: ErrorBody['details'] | undefined;
  // Quote it when reporting a 500.
  readonly requestId?: string | undefined;
  // From a 429's `retry-after`: how long Doorman asks the client to wait.
  readonly retryAfterMs?: number | undefined;
  // How many requests were sent for this call, retries included.
  attempts = 1;

  constructor(
    kind: FailureKind,
    message: string,
    init: {
      status?: number | undefined;
      body?: unknown;
      requestId?: string | undefined;
      retryAfterMs?: number | undefined;
      cause?: unknown;
    } = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = kind;
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    const body = init.body as Partial<ErrorBody> | undefined;
    if (body && typeof body === 'object' && typeof body.error === 'string') {
      this.code = body.error;
      if (body.details && typeof body.details === 'object') this.details = body.details;
    }
  }

  // 429 and 5xx are retried with the same Idempotency-Key and bytes, as are timeouts and network
  // failures; a 409 (`conflict`, `idempotency_conflict`), every other 4xx and a configuration
  // error never succeed on retry.
  get retryable(): boolean {
    if (this.kind === 'configuration') return false;
    if (this.kind !== 'response') return true;
    return this.status === 429 || (this.status !== undefined && this.status >= 500);
  }

  // The fields a 400 `invalid_request` names, one per failure.
  get issues(): ValidationIssue[] {
    return Array.isArray(this.details?.issues) ? this.details.issues : [];
  }

  static fromResponse(response: Response, body: unknown): DoormanError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const e = body as Partial<ErrorBody> | undefined;
    const what = e && typeof e === 'object' && typeof e.error === 'string' ? `${e.error}: ${e.message ?? ''}` : `HTTP ${response.status}`;
    return new DoormanError('response', `Doorman answered ${response.status} (${what})`, {
      status: response.status,
      body,
      requestId,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
    });
  }
}

// `retry-after` is delta-seconds (what Doorman sends) or an HTTP date (what a proxy may send).
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
