// The verdict's one write: the event, its review (for `review`), and the idempotency record's
// completion, in a single statement, so all or none of them exist. One round trip.
import type { Queryable, Scope } from '../db/queryable.js';
import { insertEventParams, type NewEvent } from '../events/event-store.js';

export async function writeJudgedEvent(
  db: Queryable,
  scope: Scope,
  event: NewEvent,
  extra: { idempotencyKey?: string; response: string },
): Promise<void> {
  const params = insertEventParams(scope, event);
  const review = params.push(event.verdict === 'review');
  const key = params.push(extra.idempotencyKey ?? null);
  const response = params.push(extra.response);
  await db.query(
    `WITH event AS (
       INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version,
         recommended_action, created_at, external_user_id, email, request, signals)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)),
     review AS (
       INSERT INTO reviews (tenant_id, mode, event_id, created_at) SELECT $1, $2, $3, $9 WHERE $${review}::boolean),
     idempotency AS (
       UPDATE idempotency_keys SET state = 'done', event_id = $3, response = $${response}
        WHERE tenant_id = $1 AND mode = $2 AND key = $${key}::text)
     SELECT 1`,
    params,
  );
}
