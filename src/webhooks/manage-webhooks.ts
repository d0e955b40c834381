// Use cases behind `doorman webhook …`: set the endpoint (a fresh signing secret, the previous
// one still valid for the overlap, or revoked at once when it leaked), show it without secrets,
// disable it, list deliveries, and redeliver one (the same bytes, as a new attempt, signed like
// every attempt with the secrets valid when it is sent).
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { inTransaction } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { Config } from '../config.js';
import type { Vault } from '../vault/vault.js';
import { newId } from '../db/new-id.js';
import { AppError } from '../errors.js';
import { deliveryJobOptions, inTransactionDb, QUEUES } from '../jobs/job-queue.js';
import { checkWebhookHost, checkWebhookUrl } from './safe-address.js';
import { newWebhookSecret } from './webhook-signature.js';
import { wakeWebhookWorkers } from './webhook-wake.js';
import {
  disableEndpoint,
  findDeliveryById,
  findEndpoint,
  listDeliveries,
  reopenDelivery,
  rotateSecret,
  secretSummaries,
  upsertEndpoint,
  type DeliveryStatus,
  type DeliverySummary,
} from './webhook-store.js';

// What the webhook management use cases need; the composition root (src/deps.ts) passes its Deps.
export interface WebhookDeps {
  db: pg.Pool;
  boss: PgBoss;
  config: Pick<Config, 'webhookAllowPrivate' | 'webhookSecretOverlapHours' | 'webhookTimeoutMs'>;
  vault: Vault;
}

// revokePrevious: the previous secrets stop signing at once (a leaked secret), instead of after
// WEBHOOK_SECRET_OVERLAP_HOURS; deliveries still pending are signed with the new one only.
export async function setWebhook(
  deps: WebhookDeps,
  scope: Scope,
  rawUrl: string,
  options: { revokePrevious?: boolean } = {},
): Promise<{ url: string; secret: string }> {
  const url = checkWebhookUrl(rawUrl);
  await checkWebhookHost(url, deps.config.webhookAllowPrivate);
  const secret = newWebhookSecret();
  await inTransaction(deps.db, async (tx) => {
    await upsertEndpoint(tx, scope, url.toString());
    await rotateSecret(tx, deps.vault, scope, newId('whs'), secret, options.revokePrevious ? 0 : deps.config.webhookSecretOverlapHours);
  });
  wakeWebhookWorkers(deps.db);
  return { url: url.toString(), secret };
}

export async function showWebhook(deps: Pick<WebhookDeps, 'db'>, scope: Scope) {
  const endpoint = await findEndpoint(deps.db, scope);
  if (!endpoint) throw new AppError('not_found', 'No webhook endpoint is set for this tenant and mode.');
  return { url: endpoint.url, enabled: endpoint.enabled, secrets: await secretSummaries(deps.db, scope) };
}

export async function disableWebhook(deps: Pick<WebhookDeps, 'db'>, scope: Scope): Promise<void> {
  if (!(await disableEndpoint(deps.db, scope))) throw new AppError('not_found', 'No webhook endpoint is set for this tenant and mode.');
}

export async function webhookDeliveries(
  deps: Pick<WebhookDeps, 'db'>,
  scope: Scope,
  status?: DeliveryStatus,
  limit = 100,
): Promise<DeliverySummary[]> {
  return listDeliveries(deps.db, scope, status, limit);
}

export async function redeliver(deps: WebhookDeps, scope: Scope, deliveryId: string): Promise<{ deliveryId: string }> {
  const delivery = await findDeliveryById(deps.db, deliveryId, scope);
  if (!delivery) throw new AppError('not_found', `No delivery ${deliveryId} in this tenant and mode.`);
  await inTransaction(deps.db, async (tx) => {
    const attempts = await reopenDelivery(tx, deliveryId);
    await deps.boss.send(
      QUEUES.webhookDelivery.name,
      { deliveryId, attempt: attempts + 1 },
      { db: inTransactionDb(tx), ...deliveryJobOptions(deps.config) },
    );
  });
  wakeWebhookWorkers(deps.db);
  return { deliveryId };
}
