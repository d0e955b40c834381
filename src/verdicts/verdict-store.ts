// The verdict's one write: the event, its review (for `review`), and the idempotency record's
// completion, in a single statement, so all or none of them exist: one round trip. When the
// graph could not be written inline, the repair job is enqueued in the same transaction.
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { inTransaction, type Queryable, type Scope } from '../db/queryable.js';
import { INSERT_EVENT_SQL, insertEventParams, type NewEvent } from '../events/event-store.js';
import type { LinkParams } from '../graph/identity-graph.js';
import { inTransactionDb, QUEUES } from '../jobs/job-queue.js';

// $1..$13 are the event's (INSERT_EVENT_SQL); $14 review?, $15 idempotency key, $16 response.
const WRITE_SQL = `WITH event AS (${INSERT_EVENT_SQL}),
  review AS (
    INSERT INTO reviews (tenant_id, mode, event_id, created_at) SELECT $1, $2, $3, $9 WHERE $14::boolean),
  idempotency AS (
    UPDATE idempotency_keys SET state = 'done', event_id = $3, response = $16
     WHERE tenant_id = $1 AND mode = $2 AND key = $15::text)
  SELECT 1`;

export async function writeJudgedEvent(
  db: pg.Pool,
  boss: PgBoss,
  scope: Scope,
  event: NewEvent,
  extra: { idempotencyKey?: string; response: string; graphRepair?: LinkParams },
): Promise<void> {
  const params = [...insertEventParams(scope, event), event.verdict === 'review', extra.idempotencyKey ?? null, extra.response];
  const write = (q: Queryable) => q.query(WRITE_SQL, params);
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
