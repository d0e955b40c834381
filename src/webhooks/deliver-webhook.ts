// The webhook-delivery job: one attempt at one delivery. A 2xx ends it; anything else (a status,
// a timeout, a refused connection or address, a DNS failure) is recorded and the next attempt is
// queued by the retry schedule, in the same transaction as the record; past the last attempt the
// delivery is failed. A job for an attempt already recorded (a retried job after a crash) does
// nothing, so an attempt is recorded once even if it was sent twice (at-least-once delivery).
// The bytes are frozen at the resolution; the signature is made at each attempt with the secrets
// valid at that moment, so a retry after a rotation verifies with the new secret, and a secret
// revoked because it leaked signs nothing more.
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { Vault } from '../vault/vault.js';
import type { Metrics } from '../metrics/metrics.js';
import { inTransaction } from '../db/queryable.js';
import { deliveryJobOptions, inTransactionDb, QUEUES, WAITING_DELIVERY_PRIORITY } from '../jobs/job-queue.js';
import { postWebhook } from './post-webhook.js';
import { nextWaitMs } from './retry-schedule.js';
import { signatureHeader } from './webhook-signature.js';
import { findDeliveryById, findEndpoint, recordAttempt, validSecrets } from './webhook-store.js';

export interface DeliveryJob {
  deliveryId: string;
  attempt: number;
}

export const USER_AGENT = 'Doorman-Webhooks/0.1 (+review.resolved)';

// A delivery with no enabled endpoint (or no secret) waits, checked again this often, until the
// horizon of its retry schedule has passed.
const WAIT_FOR_ENDPOINT_MS = 60_000;
const HORIZON_MS = 4 * 86_400_000;

// What the delivery job needs; the composition root (src/deps.ts) passes its Deps. Without
// `metrics`, attempts are only logged.
export interface DeliveryDeps {
  db: pg.Pool;
  boss: PgBoss;
  config: Pick<Config, 'webhookTimeoutMs' | 'webhookAllowPrivate' | 'webhookRetryUnitMs'>;
  clock: Clock;
  logger: Logger;
  vault: Vault;
  metrics?: Metrics;
}

async function requeue(deps: DeliveryDeps, job: DeliveryJob, afterMs: number): Promise<void> {
  await deps.boss.send(QUEUES.webhookDelivery.name, job, {
    ...deliveryJobOptions(deps.config),
    priority: WAITING_DELIVERY_PRIORITY,
    startAfter: new Date(deps.clock.now().getTime() + afterMs),
  });
}

export async function deliverWebhook(deps: DeliveryDeps, job: DeliveryJob): Promise<void> {
  const delivery = await findDeliveryById(deps.db, job.deliveryId);
  if (!delivery || delivery.status !== 'pending' || delivery.attempts !== job.attempt - 1) return;
  const scope = { tenantId: delivery.tenantId, mode: delivery.mode };
  const endpoint = await findEndpoint(deps.db, scope);
  const secrets = endpoint?.enabled ? await validSecrets(deps.db, deps.vault, scope) : [];
  if (!endpoint?.enabled || secrets.length === 0) {
    const waited = deps.clock.now().getTime() - delivery.createdAt.getTime();
    if (waited < HORIZON_MS) return requeue(deps, job, WAIT_FOR_ENDPOINT_MS);
    await inTransaction(deps.db, (tx) =>
      recordAttempt(
        tx,
        delivery.id,
        { attempt: job.attempt, latencyMs: 0, error: 'no enabled webhook endpoint' },
        { status: 'failed', nextAttemptAt: null },
      ),
    );
    return;
  }
  const signature = signatureHeader(secrets, delivery.payload);
  const outcome = await postWebhook(
    endpoint.url,
    delivery.payload,
    {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'Service-Signature': signature,
      'Doorman-Delivery-Id': delivery.id,
      'Doorman-Delivery-Attempt': String(job.attempt),
    },
    { timeoutMs: deps.config.webhookTimeoutMs, allowPrivate: deps.config.webhookAllowPrivate },
  );

  const delivered = outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const waitMs = delivered ? undefined : nextWaitMs(job.attempt, deps.config.webhookRetryUnitMs);
  const status = delivered ? 'delivered' : waitMs === undefined ? 'failed' : 'pending';
  const nextAttemptAt = waitMs === undefined ? null : new Date(deps.clock.now().getTime() + waitMs);
  await inTransaction(deps.db, async (tx) => {
    const recorded = await recordAttempt(
      tx,
      delivery.id,
      {
        attempt: job.attempt,
        statusCode: outcome.statusCode,
        latencyMs: outcome.latencyMs,
        responseBody: outcome.responseBody,
        error: outcome.error ?? (delivered ? undefined : `answered ${outcome.statusCode}`),
      },
      { status, nextAttemptAt },
    );
    if (recorded && nextAttemptAt) {
      await deps.boss.send(
        QUEUES.webhookDelivery.name,
        { deliveryId: delivery.id, attempt: job.attempt + 1 },
        { db: inTransactionDb(tx), ...deliveryJobOptions(deps.config), startAfter: nextAttemptAt },
      );
    }
  });
  deps.metrics?.webhookAttempt(status, delivery.createdAt, deps.clock.now());
  deps.logger.info(
    {
      delivery_id: delivery.id,
      attempt: job.attempt,
      status,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      err: outcome.error,
    },
    'webhook attempt',
  );
}
