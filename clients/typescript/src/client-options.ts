// What a client is made with: doormanClient(options) takes it, and checkConfiguration() checks it
// when the client is made.
import type { RetryInfo } from './send-with-retries.js';

export interface DoormanClientOptions {
  // sk_live_… or sk_test_…: server-side only. The key alone decides tenant and mode.
  secretKey: string;
  // Where your Doorman listens, e.g. https://doorman.internal.example (a path prefix is kept).
  baseUrl: string;
  // screen()'s whole budget, retries included (default 2000 ms): it runs while your user waits.
  screenTimeoutMs?: number | undefined;
  // The other calls' budget (default 10000 ms).
  timeoutMs?: number | undefined;
  // Retries after the first request, within the budget (default 2).
  maxRetries?: number | undefined;
  // Called before each retry, e.g. to log it.
  onRetry?: ((info: RetryInfo) => void) | undefined;
  // When Doorman cannot be reached as configured (the host does not resolve, a redirect, https to
  // a plain-http port, an untrusted certificate), screen() throws DoormanError kind
  // `configuration` at once, by default: such a failure repeats on every call until someone fixes
  // it. true: resolve to a fail-open `allow` with reason `configuration_error` instead (also at
  // once); then alert on that reason.
  failOpenOnConfigurationError?: boolean | undefined;
  // Another fetch implementation (default: the global one).
  fetch?: typeof fetch | undefined;
}
