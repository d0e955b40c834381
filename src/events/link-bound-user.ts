// After PATCH binds an external_user_id, the identity graph gains the account link: link-event
// is replayed for the stored event with the account, counting nothing twice. If the graph is
// unavailable, the repair job does it later.
import type { Scope } from '../db/queryable.js';
import type { Deps } from '../deps.js';
import { eventIdentifiers } from '../graph/event-identifiers.js';
import { linkEvent, linkParams } from '../graph/identity-graph.js';
import { QUEUES } from '../jobs/job-queue.js';
import type { StoredEvent } from './event-store.js';

interface StoredParts {
  request: { email?: string; identity?: Record<string, string>; payment?: { card_fingerprint?: string; card_country?: string } };
  signals: { deviceId?: string };
}

export function linkBoundUser(deps: Pick<Deps, 'db' | 'graph' | 'cypher' | 'boss' | 'config' | 'logger'>) {
  return async (scope: Scope, event: StoredEvent): Promise<void> => {
    const { rows } = await deps.db.query<StoredParts>('SELECT request, signals FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3', [
      scope.tenantId,
      scope.mode,
      event.id,
    ]);
    const stored = rows[0];
    if (!stored || !event.externalUserId) return;
    const card = stored.request.payment?.card_fingerprint;
    const params = linkParams(scope, {
      eventId: event.id, eventType: event.eventType, at: event.createdAt.getTime(), account: event.externalUserId,
      ids: eventIdentifiers({ email: stored.request.email, deviceId: stored.signals.deviceId, card, identity: stored.request.identity }),
      card: card ?? null, cardCountry: stored.request.payment?.card_country ?? null,
      hubThreshold: deps.config.hubThreshold, clusterId: event.id.replace(/^evt_/, 'clu_'), newEvent: false,
    });
    try {
      await linkEvent(deps.graph, deps.cypher, params, 5000);
    } catch (err) {
      deps.logger.warn({ event_id: event.id, err: String(err) }, 'graph unavailable: account link queued');
      await deps.boss.send(QUEUES.graphRepair, params, { db: { executeSql: (text, values) => deps.db.query(text, values) } });
    }
  };
}
