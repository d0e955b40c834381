// Use case: bind the caller's user id to a stored event, write-once (contract §3, §4.4), and give
// the identity graph the account link: the event's row is locked, bound, and the link written to
// the graph outbox in one short transaction; the graph writer applies it after the event's own
// link (same lane, later seq), so the account joins the event's cluster with nothing counted twice.
import { inTransaction } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { Deps } from '../deps.js';
import { graphLinkOf } from '../graph/identity-graph.js';
import { AppError } from '../errors.js';
import { bindExternalUser, lockBinding } from './event-store.js';

export async function attachUser(deps: Pick<Deps, 'db' | 'config' | 'graphOutbox'>, scope: Scope, input: { eventId: string; externalUserId: string }): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    const event = await lockBinding(tx, scope, input.eventId);
    if (!event) throw new AppError('not_found', `No event ${input.eventId}.`);
    if (event.externalUserId === input.externalUserId) return;
    if (event.externalUserId !== undefined) {
      throw new AppError('conflict', 'This event is already bound to a different external_user_id; the binding is write-once.');
    }
    await bindExternalUser(tx, scope, input.eventId, input.externalUserId);
    const card = event.request.payment?.card_fingerprint;
    const link = graphLinkOf(scope, {
      eventId: input.eventId, eventType: event.eventType, at: event.createdAt.getTime(), account: input.externalUserId,
      email: event.request.email, deviceId: event.deviceId, card, cardCountry: card ? event.request.payment?.card_country : undefined,
      identity: event.request.identity,
    }, deps.config.hubThreshold);
    if (link) await deps.graphOutbox.accountLink(tx, scope, link);
  });
}
