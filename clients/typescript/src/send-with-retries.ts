// One call under the contract's retry rules (§7): within one time budget, a 429 or 5xx is retried
// after its `retry-after` when it has one, and a 5xx, a network failure or an unreadable answer
// otherwise after a short jittered backoff; every other answer is final. The caller's attempt function sends the same
// request each time (same Idempotency-Key, same bytes), so a retry can never be judged twice.
import { DoormanError } from './doorman-error.js';

export interface RetryInfo {
  // 1 for the first retry.
  retry: number;
  delayMs: number;
  error: DoormanError;
}

export interface RetryOptions {
  // The budget for the whole call, retries and waits included.
  timeoutMs: number;
  maxRetries: number;
  signal?: AbortSignal | undefined;
  onRetry?: ((info: RetryInfo) => void) | undefined;
  // A status that is an answer for this call although not 2xx (ping(): /health's 503).
  acceptStatus?: ((status: number) => boolean) | undefined;
}

export type Attempt<T> = (signal: AbortSignal) => Promise<{ data?: T; error?: unknown; response: Response }>;

const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 2000;

export async function sendWithRetries<T>(attempt: Attempt<T>, options: RetryOptions): Promise<{ data: T; response: Response }> {
  const deadline = Date.now() + options.timeoutMs;
  for (let retry = 0; ; retry++) {
    const outcome = await once(attempt, deadline, options);
    if (!(outcome instanceof DoormanError)) return outcome;
    outcome.attempts = retry + 1;
    if (!outcome.retryable || retry >= options.maxRetries) throw outcome;
    const delayMs = retryDelayMs(outcome, retry);
    // A wait that would end past the budget cannot help: honour retry-after by giving up.
    if (Date.now() + delayMs >= deadline) throw outcome;
    options.onRetry?.({ retry: retry + 1, delayMs, error: outcome });
    await sleep(delayMs, options.signal);
  }
}

async function once<T>(
  attempt: Attempt<T>,
  deadline: number,
  options: RetryOptions,
): Promise<{ data: T; response: Response } | DoormanError> {
  const callerSignal = options.signal;
  const remaining = deadline - Date.now();
  if (remaining <= 0) return new DoormanError('timeout', 'no answer from Doorman within the time budget');
  // AbortSignal.any is newer than Node 18: combine the budget and the caller's signal by hand.
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort(new DoormanError('timeout', `no answer from Doorman within the time budget`));
  }, remaining);
  const onCallerAbort = () => abort.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    callerSignal?.throwIfAborted();
    const { data, error, response } = await attempt(abort.signal);
    if (response.ok) return { data: data as T, response };
    if (options.acceptStatus?.(response.status)) return { data: error as T, response };
    return DoormanError.fromResponse(response, error);
  } catch (err) {
    if (timedOut) return new DoormanError('timeout', `no answer from Doorman within the time budget`, { cause: err });
    // The caller cancelled: that is theirs to handle, not a failure of Doorman.
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (err instanceof SyntaxError)
      return new DoormanError('invalid_response', `Doorman's answer is not JSON: ${err.message}`, { cause: err });
    const misconfigured = configurationProblem(err);
    if (misconfigured)
      return new DoormanError('configuration', `Doorman cannot be reached as configured: ${misconfigured}`, { cause: err });
    return new DoormanError('network', `cannot reach Doorman: ${describe(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
  }
}

// Failures that repeat identically on every attempt until the configuration changes, by the code
// Node gives them, with what to check.
const CONFIGURATION_CODES: Record<string, string> = {
  ENOTFOUND: 'the host of baseUrl does not resolve (DNS: no such name)',
  ERR_INVALID_URL: 'baseUrl is not a valid URL',
  ERR_SSL_WRONG_VERSION_NUMBER: 'baseUrl says https but the server speaks plain http',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'baseUrl says https but the server speaks plain http',
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is not for the host of baseUrl",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  CERT_NOT_YET_VALID: "the server's TLS certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed (trust its CA with NODE_EXTRA_CA_CERTS)",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate chains to an untrusted CA (trust it with NODE_EXTRA_CA_CERTS)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate cannot be verified (an intermediate certificate is missing)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's TLS certificate's issuer is not trusted here (NODE_EXTRA_CA_CERTS)",
};

function configurationProblem(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const code = cause?.code ?? (err as { code?: unknown })?.code;
  if (typeof code === 'string' && code in CONFIGURATION_CODES) return `${CONFIGURATION_CODES[code]} (${code})`;
  // Node's fetch refuses some ports outright and, as configured here, every redirect.
  if (cause?.message === 'bad port') return 'fetch refuses the port of baseUrl (a "bad port" of the Fetch standard)';
  if (cause?.message === 'unexpected redirect') {
    return 'Doorman answered with a redirect, which the client never follows (the key would go along): set baseUrl to where it points';
  }
  if (err instanceof TypeError && /Invalid URL|Failed to parse URL|includes credentials/.test(err.message)) return err.message;
  return undefined;
}

// Node's fetch says "fetch failed" and keeps the reason (ECONNREFUSED, ECONNRESET...) in `cause`.
function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

export function retryDelayMs(error: DoormanError, retry: number): number {
  // Doorman sends retry-after with a 429, and with a 503 while a fresh instance warms up.
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  // Exponential with jitter (half fixed, half random), so clients that failed together do not
  // come back together.
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
