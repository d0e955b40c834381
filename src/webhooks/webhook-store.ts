// SQL for webhook endpoints, signing secrets (stored sealed by the vault), deliveries and their
// attempts.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { Vault } from '../vault/vault.js';

export const webhookSecretHome = (id: string) => `webhook_secrets/${id}`;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Endpoint {
  url: string;
  enabled: boolean;
}

export async function upsertEndpoint(tx: Queryable, scope: Scope, url: string): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_endpoints (tenant_id, mode, url, enabled, updated_at) VALUES ($1, $2, $3, true, now())
     ON CONFLICT (tenant_id, mode) DO UPDATE SET url = EXCLUDED.url, enabled = true, updated_at = now()`,
    [scope.tenantId, scope.mode, url],
  );
}

// The current secret becomes a previous one, valid for the overlap; the new one is current.
// With no overlap, every secret still valid stops at once (a revocation), earlier previous ones too.
export async function rotateSecret(
  tx: Queryable,
  vault: Vault,
  scope: Scope,
  id: string,
  secret: string,
  overlapHours: number,
): Promise<void> {
  await tx.query(
    `UPDATE webhook_secrets SET valid_until = now() + make_interval(hours => $3)
      WHERE tenant_id = $1 AND mode = $2 AND (valid_until IS NULL OR ($3 = 0 AND valid_until > now()))`,
    [scope.tenantId, scope.mode, overlapHours],
  );
  const sealed = await vault.seal(webhookSecretHome(id), Buffer.from(secret, 'utf8'));
  await tx.query('INSERT INTO webhook_secrets (id, tenant_id, mode, sealed) VALUES ($1, $2, $3, $4)', [
    id,
    scope.tenantId,
    scope.mode,
    sealed,
  ]);
}

export async function findEndpoint(db: Queryable, scope: Scope): Promise<Endpoint | undefined> {
  const { rows } = await db.query<Endpoint>('SELECT url, enabled FROM webhook_endpoints WHERE tenant_id = $1 AND mode = $2', [
    scope.tenantId,
    scope.mode,
  ]);
  return rows[0];
}

export async function disableEndpoint(db: Queryable, scope: Scope): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE webhook_endpoints SET enabled = false, updated_at = now() WHERE tenant_id = $1 AND mode = $2',
    [scope.tenantId, scope.mode],
  );
  return (rowCount ?? 0) > 0;
}

// Secrets valid now, the current one first.
export async function validSecrets(db: Queryable, vault: Vault, scope: Scope): Promise<string[]> {
  const { rows } = await db.query<{ id: string; secret: string | null; sealed: string | null }>(
    `SELECT id, secret, sealed FROM webhook_secrets WHERE tenant_id = $1 AND mode = $2 AND (valid_until IS NULL OR valid_until > now())
      ORDER BY valid_until IS NULL DESC, created_at DESC`,
    [scope.tenantId, scope.mode],
  );
  // A row from before sealing holds the secret in `secret` until `doorman migrate` seals it.
  return Promise.all(
    rows.map(async (r) => (r.sealed ? (await vault.open(webhookSecretHome(r.id), r.sealed)).toString('utf8') : r.secret!)),
  );
}

export async function secretSummaries(
  db: Queryable,
  scope: Scope,
): Promise<{ id: string; created_at: string; valid_until: string | null }[]> {
  const { rows } = await db.query<{ id: string; created_at: Date; valid_until: Date | null }>(
    `SELECT id, created_at, valid_until FROM webhook_secrets WHERE tenant_id = $1 AND mode = $2 AND (valid_until IS NULL OR valid_until > now())
      ORDER BY valid_until IS NULL DESC, created_at DESC`,
    [scope.tenantId, scope.mode],
  );
  return rows.map((r) => ({ id: r.id, created_at: r.created_at.toISOString(), valid_until: r.valid_until?.toISOString() ?? null }));
}

export async function insertDelivery(tx: Queryable, scope: Scope, d: { id: string; eventId: string; payload: string }): Promise<void> {
  await tx.query(
    'INSERT INTO webhook_deliveries (id, tenant_id, mode, event_id, payload, next_attempt_at) VALUES ($1, $2, $3, $4, $5, now())',
    [d.id, scope.tenantId, scope.mode, d.eventId, d.payload],
  );
}

export interface DeliveryRow {
  id: string;
  tenantId: string;
  mode: 'live' | 'test';
  eventId: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  createdAt: Date;
}

export async function findDeliveryById(db: Queryable, id: string, scope?: Scope): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<{
    id: string;
    tenant_id: string;
    mode: 'live' | 'test';
    event_id: string;
    payload: string;
    status: DeliveryStatus;
    attempts: number;
    created_at: Date;
  }>(
    `SELECT id, tenant_id, mode, event_id, payload, status, attempts, created_at FROM webhook_deliveries
      WHERE id = $1 AND ($2::text IS NULL OR (tenant_id = $2 AND mode = $3))`,
    [id, scope?.tenantId ?? null, scope?.mode ?? null],
  );
  const r = rows[0];
  return (
    r && {
      id: r.id,
      tenantId: r.tenant_id,
      mode: r.mode,
      eventId: r.event_id,
      payload: r.payload,
      status: r.status,
      attempts: r.attempts,
      createdAt: r.created_at,
    }
  );
}

export interface AttemptRecord {
  attempt: number;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  responseBody?: string;
}

// Records one attempt and the delivery's new state, only if the delivery is still at the
// attempt this worker made (a retried job for an attempt already recorded changes nothing).
export async function recordAttempt(
  tx: Queryable,
  id: string,
  a: AttemptRecord,
  next: { status: DeliveryStatus; nextAttemptAt: Date | null },
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE webhook_deliveries SET attempts = $2, status = $3, last_status_code = $4, last_error = $5, next_attempt_at = $6,
            delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END
      WHERE id = $1 AND attempts = $2 - 1`,
    [id, a.attempt, next.status, a.statusCode ?? null, a.error ?? null, next.nextAttemptAt],
  );
  if (!rowCount) return false;
  await tx.query(
    'INSERT INTO webhook_attempts (delivery_id, attempt, status_code, latency_ms, error, response_body) VALUES ($1, $2, $3, $4, $5, $6)',
    [id, a.attempt, a.statusCode ?? null, a.latencyMs, a.error ?? null, a.responseBody ?? null],
  );
  return true;
}

export async function reopenDelivery(tx: Queryable, id: string): Promise<number> {
  const { rows } = await tx.query<{ attempts: number }>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() WHERE id = $1 RETURNING attempts`,
    [id],
  );
  return rows[0]?.attempts ?? 0;
}

export interface DeliverySummary {
  delivery_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export async function listDeliveries(
  db: Queryable,
  scope: Scope,
  status: DeliveryStatus | undefined,
  limit: number,
): Promise<DeliverySummary[]> {
  const { rows } = await db.query<{
    id: string;
    event_id: string;
    status: DeliveryStatus;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    next_attempt_at: Date | null;
    created_at: Date;
    delivered_at: Date | null;
  }>(
    `SELECT id, event_id, status, attempts, last_status_code, last_error, next_attempt_at, created_at, delivered_at
       FROM webhook_deliveries WHERE tenant_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3)
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [scope.tenantId, scope.mode, status ?? null, limit],
  );
  return rows.map((r) => ({
    delivery_id: r.id,
    event_id: r.event_id,
    status: r.status,
    attempts: r.attempts,
    last_status_code: r.last_status_code,
    last_error: r.last_error,
    next_attempt_at: r.next_attempt_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    delivered_at: r.delivered_at?.toISOString() ?? null,
  }));
}
