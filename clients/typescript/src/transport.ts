// What every call of the client shares: the typed HTTP client for the contract's paths (with the
// secret key), the default time budget and retry count, the retry hook, and what a configuration
// error does to screen().
import type { Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import type { RetryInfo } from './send-with-retries.js';

export interface Transport {
  api: Client<paths>;
  screenTimeoutMs: number;
  timeoutMs: number;
  maxRetries: number;
  onRetry?: ((info: RetryInfo) => void) | undefined;
  failOpenOnConfigurationError: boolean;
}

// Per call: any of these overrides the client's default.
export interface CallOptions {
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  signal?: AbortSignal | undefined;
}

// A call's retry options: its own overrides, else the client's defaults.
export function budgetOf(transport: Transport, options: CallOptions = {}) {
  return {
    timeoutMs: options.timeoutMs ?? transport.timeoutMs,
    maxRetries: options.maxRetries ?? transport.maxRetries,
    signal: options.signal,
    onRetry: transport.onRetry,
  };
}
