// The server-side client: `doormanClient({ secretKey, baseUrl })` gives screen() for the inline
// verdict call, events (list, get, attachUser) and feedback.report(), all typed from the served
// OpenAPI document and all retried by the contract's rules. Webhook verification lives in
// `@doorman/client/webhooks`, the browser's device token in `@doorman/client/browser`.
import createClient from 'openapi-fetch';
import type { FeedbackRequest, VerdictRequest } from './contract-types.js';
import { eventsApi, type EventsApi } from './events-api.js';
import type { paths } from './generated/openapi.js';
import { screenEvent, type ScreenOptions, type ScreenResult } from './screen-event.js';
import { sendWithRetries, type RetryInfo } from './send-with-retries.js';
import type { CallOptions, Transport } from './transport.js';

export interface DoormanClientOptions {
  // sk_live_… or sk_test_…: server-side only. The key alone decides tenant and mode.
  secretKey: string;
  // Where your Doorman listens, e.g. https://doorman.internal.example.
  baseUrl: string;
  // screen()'s whole budget, retries included (default 2000 ms): it runs while your user waits.
  screenTimeoutMs?: number;
  // The other calls' budget (default 10000 ms).
  timeoutMs?: number;
  // Retries after the first request, within the budget (default 2).
  maxRetries?: number;
  // Called before each retry, e.g. to log it.
  onRetry?: (info: RetryInfo) => void;
  // Another fetch implementation (default: the global one).
  fetch?: typeof fetch;
}

export interface DoormanClient {
  screen(event: VerdictRequest, options?: ScreenOptions): Promise<ScreenResult>;
  events: EventsApi;
  feedback: {
    // Identical reposts are deduplicated by Doorman, so a retry is safe. A subject that resolves
    // to nothing throws DoormanError with code `not_found`.
    report(feedback: FeedbackRequest, options?: CallOptions): Promise<void>;
  };
}

export function doormanClient(options: DoormanClientOptions): DoormanClient {
  if (typeof options?.secretKey !== 'string' || !/^sk_(live|test)_/.test(options.secretKey)) {
    throw new TypeError('secretKey must be a secret key (sk_live_… or sk_test_…); publishable keys are for getDeviceToken()');
  }
  if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
    throw new TypeError('baseUrl must be an http(s) URL');
  }
  const transport: Transport = {
    api: createClient<paths>({
      baseUrl: options.baseUrl,
      headers: { Authorization: `Bearer ${options.secretKey}` },
      // Never carry the secret key to wherever a redirect points.
      redirect: 'error',
      ...(options.fetch && { fetch: options.fetch }),
    }),
    screenTimeoutMs: options.screenTimeoutMs ?? 2000,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 2,
    onRetry: options.onRetry,
  };
  return {
    screen: (event, screenOptions) => screenEvent(transport, event, screenOptions),
    events: eventsApi(transport),
    feedback: {
      async report(feedback, callOptions = {}) {
        await sendWithRetries((signal) => transport.api.POST('/v1/feedback', { body: feedback, signal }), {
          timeoutMs: callOptions.timeoutMs ?? transport.timeoutMs,
          maxRetries: callOptions.maxRetries ?? transport.maxRetries,
          signal: callOptions.signal,
          onRetry: transport.onRetry,
        });
      },
    },
  };
}

export { DoormanError, type FailureKind } from './doorman-error.js';
export type { Screened, FailedOpen, FailOpenReason, ScreenOptions, ScreenResult } from './screen-event.js';
export type { EventsApi } from './events-api.js';
export type { CallOptions } from './transport.js';
export type { RetryInfo } from './send-with-retries.js';
export type {
  ErrorBody, ErrorCode, EventListQuery, EventPage, EventType, FeedbackRequest, Payment, Reason, ReasonCode, RecommendedAction,
  ReviewResolvedWebhook, StoredEvent, ValidationIssue, Verdict, VerdictRequest, VerdictResponse,
} from './contract-types.js';
