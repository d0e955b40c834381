// The contract's shapes, named: derived from the types generated from the served OpenAPI document
// (src/generated/), with the open sets (reason codes, error codes, recommended actions, signal
// sources) typed as their known values or any other string, so a code added to the service later
// passes through instead of failing to type-check or to parse.
//
// Request types are stricter than the generated ones in three ways the generator cannot express:
// - VerdictRequest is a union by `event_type`, and `ip` is required on the event types whose
//   conditional in the document requires it (signup, trial_start, checkout_attempt today);
// - `payment` is offered only on `checkout_attempt`, the one event type that reads it;
// - an optional field also takes `undefined` (JSON leaves it out), so a value that may be absent,
//   such as `req.get('user-agent')`, can be passed as it is under `exactOptionalPropertyTypes`.
import type { components, webhooks } from './generated/openapi.js';
import type {
  ipRequiredEventTypes,
  knownErrorCodes,
  knownReasonCodes,
  knownRecommendedActions,
  knownSignalSources,
} from './generated/known-values.js';

type Schemas = components['schemas'];
// `string & {}` keeps editor completion for the known values while accepting any string.
type Open<Known extends string> = Known | (string & {});
// One object type instead of an intersection, for readable hovers and messages.
type Flat<T> = { [K in keyof T]: T[K] } & {};
// Every listed field optional, and `undefined` accepted wherever a field may be absent.
type MayBeAbsent<T> = { [K in keyof T]?: Exclude<T[K], undefined> | undefined };
// The named fields of a type that also has an index signature.
type Named<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

export type ReasonCode = Open<(typeof knownReasonCodes)[number]>;
export type ErrorCode = Open<(typeof knownErrorCodes)[number]>;
export type RecommendedAction = Open<(typeof knownRecommendedActions)[number]>;
// A source of signals a verdict can be decided without (`timeout_failopen`, `partial_enrichment`).
export type SignalSource = Open<(typeof knownSignalSources)[number]>;

type GeneratedRequest = Schemas['VerdictRequest'];
export type EventType = GeneratedRequest['event_type'];
export type EventTypeRequiringIp = (typeof ipRequiredEventTypes)[number];
export type Verdict = Schemas['VerdictResponse']['verdict'];

// Open: keys beyond the known ones are accepted (and ignored by Doorman).
export type Payment = Flat<MayBeAbsent<Named<Schemas['Payment']>>> & { [key: string]: unknown };

type CommonFields = MayBeAbsent<Omit<GeneratedRequest, 'event_type' | 'ip' | 'payment'>>;
// The end user's address, IPv4 or IPv6, e.g. `req.ip` behind your own trusted proxies.
type IpField<T extends EventType> = T extends EventTypeRequiringIp ? { ip: string } : { ip?: string | undefined };
// The event type whose rules read `payment` (contract §2.1: ignored on the others, so not offered
// there: a payment on a signup does not compile instead of being silently dropped).
export type EventTypeWithPayment = 'checkout_attempt';
type PaymentField<T extends EventType> = T extends EventTypeWithPayment ? { payment?: Payment | undefined } : { payment?: never };

// The request for one event type: `VerdictRequestOf<'login'>`.
export type VerdictRequestOf<T extends EventType> = Flat<{ event_type: T } & IpField<T> & PaymentField<T> & CommonFields>;
// A funnel moment to screen: one member per event type, so a signup without `ip` does not compile.
export type VerdictRequest = { [T in EventType]: VerdictRequestOf<T> }[EventType];

export type Reason = Omit<Schemas['Reason'], 'code'> & { code: ReasonCode };
export type VerdictResponse = Omit<Schemas['VerdictResponse'], 'reasons' | 'recommended_action'> & {
  reasons: Reason[];
  recommended_action?: RecommendedAction;
};
export type StoredEvent = Omit<Schemas['StoredEvent'], 'reasons' | 'recommended_action'> & {
  reasons: Reason[];
  recommended_action?: RecommendedAction;
};
export type EventListQuery = Flat<MayBeAbsent<Omit<Schemas['EventListQuery'], 'cursor'>>>;
export type EventPage = { events: StoredEvent[]; next_cursor?: string };
export type FeedbackSubject = Schemas['FeedbackSubject'];
export type FeedbackRequest = Flat<Omit<Schemas['FeedbackRequest'], 'note'> & { note?: string | undefined }>;
export type ErrorBody = Omit<Schemas['Error'], 'error'> & { error: ErrorCode };
export type ValidationIssue = Schemas['ValidationIssue'];
export type Health = Schemas['Health'];
export type HealthCheck = Schemas['HealthCheck'];

export type ReviewResolvedWebhook = NonNullable<webhooks['review.resolved']['post']['requestBody']>['content']['application/json'];
