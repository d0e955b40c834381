// The verdict's one write: the event, its review (for `review`), and the idempotency record's
// completion, in a single statement, so all or none of them exist: one round trip. When the
// graph could not be written inline, the repair job is enqueued in the same transaction.
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { inTransaction, type Queryable, type Scope } from '../db/queryable.js';
import { insertEventParams, type NewEvent } from '../events/event-store.js';
import type { LinkParams } from '../graph/identity-graph.js';
import { inTransactionDb, QUEUES } from '../jobs/job-queue.js';

const WRITE_SQL = (review: number, key: number, response: number) => `WITH event AS (
    INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version,
      recommended_action, created_at, external_user_id, email, request, signals)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)),
  review AS (
    INSERT INTO reviews (tenant_id, mode, event_id, created_at) SELECT $1, $2, $3, $9 WHERE $${review}::boolean),
  idempotency AS (
    UPDATE idempotency_keys SET state = 'done', event_id = $3, response = $${response}
     WHERE tenant_id = $1 AND mode = $2 AND key = $${key}::text)
  SELECT 1`;

export async function writeJudgedEvent(
  db: pg.Pool,
  boss: PgBoss,
  scope: Scope,
  event: NewEvent,
  extra: { idempotencyKey?: string; response: string; graphRepair?: LinkParams },
): Promise<void> {
  const params = insertEventParams(scope, event);
  const review = params.push(event.verdict === 'review');
  const key = params.push(extra.idempotencyKey ?? null);
  const response = params.push(extra.response);
  const write = (q: Queryable) => q.query(WRITE_SQL(review, key, response), params);
  const repair = extra.graphRepair;
  if (!repair) {
    await write(db);
    return;
  }
  await inTransaction(db, async (tx) => {
    await write(tx);
    await boss.send(QUEUES.graphRepair, repair, { db: inTransactionDb(tx) });
  });
}
