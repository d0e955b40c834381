// Wakes the webhook workers of every process at once after a commit that queued a delivery
// (NOTIFY), instead of waiting for pg-boss's next poll.
import type pg from 'pg';

export const WEBHOOK_CHANNEL = 'doorman_webhooks';

export function wakeWebhookWorkers(db: Pick<pg.Pool, 'query'>): void {
  db.query('SELECT pg_notify($1, $2)', [WEBHOOK_CHANNEL, '']).catch(() => undefined);
}
