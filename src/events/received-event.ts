// An event as Postgres stores it, read back for what follows from it: PATCH's binding of a user,
// a graph rebuild, `doorman graph verify` and its repair, and an erasure. The one reader of the
// stored request: the columns each of those selects, the row they get and its shape, and the one
// way a stored event becomes its graph link, so none of them can read an event differently.
import type { GraphLinkPolicy } from '../engine/policy.js';
import { graphLinkOf, type GraphLink } from '../graph/identity-graph.js';
import type { Scope } from '../scope.js';

// The request as stored: as it was received (snake_case, the wire's), in the fields that follow
// from it; an erased event's holds only `erased`.
export interface StoredRequest {
  ip?: string;
  email?: string;
  identity?: Record<string, string>;
  payment?: { card_fingerprint?: string; card_country?: string; amount?: number };
  erased?: true;
}

// The event in the domain's words: what its request carried, the device its token verified and
// the user bound to it.
export interface ReceivedEvent {
  id: string;
  eventType: string;
  createdAt: Date;
  // The user bound to the event: at the verdict, or later by PATCH.
  externalUserId?: string;
  email?: string;
  ip?: string;
  identity?: Record<string, string>;
  cardFingerprint?: string;
  cardCountry?: string;
  amount?: number;
  // The device its token verified (the signals' deviceId), never a claim of the request.
  deviceId?: string;
  // Erased: its personal data is gone, and nothing follows from it.
  erased: boolean;
}

// The columns of `events` a reader selects, in the row below.
export const RECEIVED_EVENT_COLUMNS = "id, event_type, created_at, external_user_id, request, signals->>'deviceId' AS device_id";

export interface ReceivedEventRow {
  id: string;
  event_type: string;
  created_at: Date;
  external_user_id: string | null;
  request: StoredRequest;
  device_id: string | null;
}

// The one mapping of a stored row to the domain (the wire's names end here).
export const receivedEventOf = (r: ReceivedEventRow): ReceivedEvent => ({
  id: r.id,
  eventType: r.event_type,
  createdAt: r.created_at,
  externalUserId: r.external_user_id ?? undefined,
  email: r.request.email,
  ip: r.request.ip,
  identity: r.request.identity,
  cardFingerprint: r.request.payment?.card_fingerprint,
  cardCountry: r.request.payment?.card_country,
  amount: r.request.payment?.amount,
  deviceId: r.device_id ?? undefined,
  erased: r.request.erased === true,
});

// The one way a stored event becomes its link, under the scope's link policy in force: the PATCH
// binding, the rebuild and the checker all call it, so they cannot disagree on what the graph
// holds.
export function linkOfStoredEvent(
  scope: Scope,
  e: ReceivedEvent,
  hubThreshold: number,
  linkPolicy: GraphLinkPolicy | undefined,
): GraphLink | undefined {
  return graphLinkOf(
    scope,
    {
      eventId: e.id,
      eventType: e.eventType,
      at: e.createdAt.getTime(),
      account: e.externalUserId,
      email: e.email,
      deviceId: e.deviceId,
      card: e.cardFingerprint,
      cardCountry: e.cardFingerprint ? e.cardCountry : undefined,
      identity: e.identity,
    },
    hubThreshold,
    linkPolicy,
  );
}
