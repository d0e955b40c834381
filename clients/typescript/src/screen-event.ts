// screen(): the verdict call made inline before the caller commits an action. One
// Idempotency-Key per attempt of the action (derived here unless the caller brings its own),
// the body serialised once so every retry sends the same bytes, and, by default, a clearly
// marked `allow` when Doorman is slow, unreachable or failing: screening must never be the
// reason a signup breaks.
import { randomUUID } from 'node:crypto';
import type { Reason, SignalSource, VerdictRequest, VerdictResponse } from './contract-types.js';
import { DoormanError } from './doorman-error.js';
import { sendWithRetries } from './send-with-retries.js';
import { budgetOf, type CallOptions, type Transport } from './transport.js';

export interface ScreenOptions extends CallOptions {
  // Your key for this attempt (1 to 255 characters), e.g. `signup-${attemptId}`. Reuse it only to
  // resend the identical event; a changed event under the same key is 409 `idempotency_conflict`.
  idempotencyKey?: string | undefined;
  // Resolve to an `allow` marked `failedOpen` instead of throwing when Doorman is slow, down, or
  // answers 429/5xx past the budget. Default true. Your own mistakes (400, 401, 409) always throw,
  // and so does a configuration error unless the client has `failOpenOnConfigurationError`.
  failOpen?: boolean | undefined;
}

export type Screened = VerdictResponse & {
  failedOpen: false;
  idempotencyKey: string;
  // The signal sources Doorman decided without (it answered, but a source ran past its deadline
  // or was down): read from the `timeout_failopen` and `partial_enrichment` reasons, sorted.
  // Empty when the verdict had every signal. `graph` or `lists` here means the verdict did not
  // see the identity cluster or your lists.
  degraded: SignalSource[];
};

export type FailOpenReason = 'timeout' | 'network_error' | 'server_error' | 'rate_limited' | 'invalid_response' | 'configuration_error';

export interface FailedOpen {
  verdict: 'allow';
  failedOpen: true;
  reason: FailOpenReason;
  reasons: [];
  // Screen the identical event again later with this key to learn the verdict, if the call did
  // reach a decision after all (Doorman replays it) or to get one now.
  idempotencyKey: string;
  error: DoormanError;
}

export type ScreenResult = Screened | FailedOpen;

const MAX_KEY_LENGTH = 255;

export async function screenEvent(transport: Transport, event: VerdictRequest, options: ScreenOptions = {}): Promise<ScreenResult> {
  const idempotencyKey = options.idempotencyKey ?? randomUUID();
  // Doorman ignores an empty or over-long key as if absent: refuse it here instead, or retries
  // would silently stop being safe.
  if (typeof idempotencyKey !== 'string' || idempotencyKey.length === 0 || idempotencyKey.length > MAX_KEY_LENGTH) {
    throw new TypeError(`idempotencyKey must be 1 to ${MAX_KEY_LENGTH} characters`);
  }
  const bytes = JSON.stringify(event);
  try {
    const { data } = await sendWithRetries<VerdictResponse>(
      (signal) =>
        transport.api.POST('/v1/verdict', {
          // The generated type, without the `| undefined` of optional fields (which JSON drops).
          body: event as never,
          bodySerializer: () => bytes,
          params: { header: { 'Idempotency-Key': idempotencyKey } },
          signal,
        }),
      budgetOf(transport, { ...options, timeoutMs: options.timeoutMs ?? transport.screenTimeoutMs }),
    );
    if (!data || typeof data.id !== 'string' || typeof data.verdict !== 'string' || !Array.isArray(data.reasons)) {
      throw new DoormanError('invalid_response', 'Doorman answered 200 without a verdict');
    }
    return { ...data, failedOpen: false, idempotencyKey, degraded: degradedSources(data.reasons) };
  } catch (err) {
    if (!(err instanceof DoormanError) || options.failOpen === false) throw err;
    const failsOpen = err.kind === 'configuration' ? transport.failOpenOnConfigurationError : err.retryable;
    if (!failsOpen) throw err;
    return { verdict: 'allow', failedOpen: true, reason: failOpenReason(err), reasons: [], idempotencyKey, error: err };
  }
}

// The reasons that say a source was missing name it in `detail.sources` (comma-separated); one
// without it (a later Doorman's) still counts, as `unknown`.
const DEGRADED_CODES = new Set(['timeout_failopen', 'partial_enrichment']);

export function degradedSources(reasons: readonly Reason[]): SignalSource[] {
  const sources = new Set<string>();
  for (const reason of reasons) {
    if (!DEGRADED_CODES.has(reason.code)) continue;
    const named =
      typeof reason.detail?.sources === 'string'
        ? reason.detail.sources
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [];
    for (const source of named.length > 0 ? named : ['unknown']) sources.add(source);
  }
  return [...sources].sort();
}

function failOpenReason(err: DoormanError): FailOpenReason {
  if (err.kind === 'configuration') return 'configuration_error';
  if (err.kind === 'timeout') return 'timeout';
  if (err.kind === 'network') return 'network_error';
  if (err.kind === 'invalid_response') return 'invalid_response';
  return err.status === 429 ? 'rate_limited' : 'server_error';
}
