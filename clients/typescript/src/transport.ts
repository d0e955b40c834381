// What every call of the client shares: the typed HTTP client for the contract's paths (with the
// secret key), the default time budget and retry count, and the retry hook.
import type { Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import type { RetryInfo } from './send-with-retries.js';

export interface Transport {
  api: Client<paths>;
  screenTimeoutMs: number;
  timeoutMs: number;
  maxRetries: number;
  onRetry?: (info: RetryInfo) => void;
}

// Per call: any of these overrides the client's default.
export interface CallOptions {
  timeoutMs?: number;
  maxRetries?: number;
  signal?: AbortSignal;
}
