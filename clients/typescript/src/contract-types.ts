// The contract's shapes, named: aliases of the types generated from the served OpenAPI document
// (src/generated/), with the open sets (reason codes, error codes, recommended actions) typed
// as their known values or any other string, so a code added to the service later passes
// through instead of failing to type-check or to parse.
import type { components, webhooks } from './generated/openapi.js';
import type { knownErrorCodes, knownReasonCodes, knownRecommendedActions } from './generated/known-values.js';

type Schemas = components['schemas'];
// `string & {}` keeps editor completion for the known values while accepting any string.
type Open<Known extends string> = Known | (string & {});

export type ReasonCode = Open<(typeof knownReasonCodes)[number]>;
export type ErrorCode = Open<(typeof knownErrorCodes)[number]>;
export type RecommendedAction = Open<(typeof knownRecommendedActions)[number]>;

export type EventType = Schemas['VerdictRequest']['event_type'];
export type Verdict = Schemas['VerdictResponse']['verdict'];
export type VerdictRequest = Schemas['VerdictRequest'];
export type Payment = Schemas['Payment'];

export type Reason = Omit<Schemas['Reason'], 'code'> & { code: ReasonCode };
export type VerdictResponse = Omit<Schemas['VerdictResponse'], 'reasons' | 'recommended_action'> & {
  reasons: Reason[];
  recommended_action?: RecommendedAction;
};
export type StoredEvent = Omit<Schemas['StoredEvent'], 'reasons' | 'recommended_action'> & {
  reasons: Reason[];
  recommended_action?: RecommendedAction;
};
export type EventListQuery = Omit<Schemas['EventListQuery'], 'cursor'>;
export type EventPage = { events: StoredEvent[]; next_cursor?: string };
export type FeedbackRequest = Schemas['FeedbackRequest'];
export type ErrorBody = Omit<Schemas['Error'], 'error'> & { error: ErrorCode };
export type ValidationIssue = Schemas['ValidationIssue'];

export type ReviewResolvedWebhook = NonNullable<webhooks['review.resolved']['post']['requestBody']>['content']['application/json'];
