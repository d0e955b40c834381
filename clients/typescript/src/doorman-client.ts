// The server-side client: `doormanClient({ secretKey, baseUrl })` gives screen() for the inline
// verdict call, ping() for a start-up check, events (list, get, attachUser) and feedback.report(),
// all typed from the served OpenAPI document and all retried by the contract's rules. Webhook
// verification lives in `@doorman/client/webhooks`, the browser's device token in
// `@doorman/client/browser`.
import createClient from 'openapi-fetch';
import { checkConfiguration } from './check-configuration.js';
import { DoormanError } from './doorman-error.js';
import type { FeedbackRequest, Health, VerdictRequest } from './contract-types.js';
import { eventsApi, type EventsApi } from './events-api.js';
import type { paths } from './generated/openapi.js';
import { screenEvent, type ScreenOptions, type ScreenResult } from './screen-event.js';
import { sendWithRetries } from './send-with-retries.js';
import type { DoormanClientOptions } from './client-options.js';
import { budgetOf, type CallOptions, type Transport } from './transport.js';

export interface FeedbackReceipt {
  ok: true;
  // true when Doorman already held this (subject, outcome) and stored nothing new.
  duplicate: boolean;
}

export interface PingResult {
  // /health: `ok` when Postgres, Neo4j and Redis all answer; `unavailable` when one does not
  // (verdicts then fail open on the server's side, or answer 500).
  status: Health['status'];
  checks: Health['checks'];
  // The key was accepted (a refused key throws DoormanError code `unauthorized`), in this mode.
  mode: 'live' | 'test';
  // From the first request to the last answer.
  latencyMs: number;
}

export interface DoormanClient {
  screen(event: VerdictRequest, options?: ScreenOptions): Promise<ScreenResult>;
  // A start-up check that screens nothing: Doorman answers at baseUrl, its dependencies are up, and
  // it accepts the secret key. Throws DoormanError otherwise (`kind` and `code` say which). Its
  // budget is 3000 ms unless `timeoutMs` says otherwise (a server that accepts the connection and
  // never answers throws `timeout` then).
  ping(options?: CallOptions): Promise<PingResult>;
  events: EventsApi;
  feedback: {
    // Identical reposts are deduplicated by Doorman (`duplicate: true`), so a retry is safe. A
    // subject that resolves to nothing throws DoormanError with code `not_found`.
    report(feedback: FeedbackRequest, options?: CallOptions): Promise<FeedbackReceipt>;
  };
}

// ping()'s default budget: a start-up check should say "not there" in seconds, not the 10 s the
// other calls may take.
export const PING_TIMEOUT_MS = 3000;

export function doormanClient(options: DoormanClientOptions): DoormanClient {
  const { baseUrl, mode } = checkConfiguration(options);
  const transport: Transport = {
    api: createClient<paths>({
      baseUrl,
      headers: { Authorization: `Bearer ${options.secretKey}` },
      // Never carry the secret key to wherever a redirect points.
      redirect: 'error',
      ...(options.fetch && { fetch: options.fetch }),
    }),
    screenTimeoutMs: options.screenTimeoutMs ?? 2000,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 2,
    onRetry: options.onRetry,
    failOpenOnConfigurationError: options.failOpenOnConfigurationError === true,
  };
  const budget = (callOptions?: CallOptions) => budgetOf(transport, callOptions);
  const events = eventsApi(transport);
  return {
    screen: (event, screenOptions) => screenEvent(transport, event, screenOptions),
    async ping(pingOptions) {
      const callOptions = { ...pingOptions, timeoutMs: pingOptions?.timeoutMs ?? PING_TIMEOUT_MS };
      const started = Date.now();
      const [health] = await Promise.all([
        // A 503 is an answer here: Doorman is there, one of its stores is not.
        sendWithRetries<Health>((signal) => transport.api.GET('/health', { signal }), {
          ...budget(callOptions),
          acceptStatus: (status) => status === 503,
        }),
        // The cheapest call a secret key is checked on: the first page of one stored event (none needed).
        events.pages({ limit: 1 }, callOptions).next(),
      ]);
      const body = health.data;
      if (!body || (body.status !== 'ok' && body.status !== 'unavailable') || typeof body.checks !== 'object') {
        throw new DoormanError(
          'invalid_response',
          `GET /health at ${baseUrl} did not answer Doorman's health report: is baseUrl a Doorman?`,
        );
      }
      return { status: body.status, checks: body.checks, mode, latencyMs: Date.now() - started };
    },
    events,
    feedback: {
      async report(feedback, callOptions) {
        const { data } = await sendWithRetries<{ ok: true; duplicate?: boolean }>(
          (signal) => transport.api.POST('/v1/feedback', { body: feedback as never, signal }),
          budget(callOptions),
        );
        return { ok: true, duplicate: data?.duplicate === true };
      },
    },
  };
}

export { DoormanError, type FailureKind } from './doorman-error.js';
export type { Screened, FailedOpen, FailOpenReason, ScreenOptions, ScreenResult } from './screen-event.js';
export type { EventsApi } from './events-api.js';
export type { CallOptions } from './transport.js';
export type { RetryInfo } from './send-with-retries.js';
export type { DoormanClientOptions } from './client-options.js';
export type {
  ErrorBody,
  ErrorCode,
  EventListQuery,
  EventPage,
  EventType,
  EventTypeRequiringIp,
  EventTypeWithPayment,
  FeedbackRequest,
  FeedbackSubject,
  Health,
  HealthCheck,
  Payment,
  Reason,
  ReasonCode,
  RecommendedAction,
  ReviewResolvedWebhook,
  SignalSource,
  StoredEvent,
  ValidationIssue,
  Verdict,
  VerdictRequest,
  VerdictRequestOf,
  VerdictResponse,
} from './contract-types.js';
