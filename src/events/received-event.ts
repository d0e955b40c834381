// An event as Postgres stores it, read back for what follows from it: PATCH's binding of a user,
// a graph rebuild, `doorman graph verify` and its repair, and an erasure. The one reader of the
// stored request: the columns each of those selects, the row they get and its shape, and the one
// way a stored event becomes its graph link, so none of them can read an event differently.
import type { GraphLinkPolicy } from '../engine/policy.js';
import { graphLinkOf, type GraphLink } from '../graph/identity-graph.js';
import type { Scope } from '../scope.js';

// The request as it was received (snake_case, as on the wire), in the fields that follow from
// it; an erased event's holds only `erased`.
export interface StoredRequest {
  ip?: string;
  email?: string;
  identity?: Record<string, string>;
  payment?: { card_fingerprint?: string; card_country?: string; amount?: number };
  erased?: true;
}

export interface ReceivedEvent {
  id: string;
  eventType: string;
  createdAt: Date;
  // The user bound to the event: at the verdict, or later by PATCH.
  externalUserId?: string;
  email?: string;
  request: StoredRequest;
  // The device its token verified (the signals' deviceId), never a claim of the request.
  deviceId?: string;
}

// The columns of `events` a reader selects, in the row below.
export const RECEIVED_EVENT_COLUMNS = "id, event_type, created_at, external_user_id, email, request, signals->>'deviceId' AS device_id";

export interface ReceivedEventRow {
  id: string;
  event_type: string;
  created_at: Date;
  external_user_id: string | null;
  email: string | null;
  request: StoredRequest;
  device_id: string | null;
}

export const receivedEventOf = (r: ReceivedEventRow): ReceivedEvent => ({
  id: r.id, eventType: r.event_type, createdAt: r.created_at, externalUserId: r.external_user_id ?? undefined,
  email: r.email ?? undefined, request: r.request, deviceId: r.device_id ?? undefined,
});

// The one way a stored event becomes its link, under the scope's link policy in force: the PATCH
// binding, the rebuild and the checker all call it, so they cannot disagree on what the graph
// holds.
export function linkOfStoredEvent(scope: Scope, e: ReceivedEvent, hubThreshold: number, linkPolicy: GraphLinkPolicy | undefined): GraphLink | undefined {
  const card = e.request.payment?.card_fingerprint;
  return graphLinkOf(scope, {
    eventId: e.id, eventType: e.eventType, at: e.createdAt.getTime(), account: e.externalUserId, email: e.request.email,
    deviceId: e.deviceId, card, cardCountry: card ? e.request.payment?.card_country : undefined, identity: e.request.identity,
  }, hubThreshold, linkPolicy);
}
