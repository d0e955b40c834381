// SQL for events: insert, fetch, keyset listing and the write-once user binding.
import type { Queryable, Scope } from '../db/queryable.js';

export type Verdict = 'allow' | 'review' | 'block';

export interface Reason {
  code: string;
  detail?: Record<string, string | number | boolean>;
}

export interface StoredEvent {
  id: string;
  eventType: string;
  verdict: Verdict;
  reasons: Reason[];
  policyVersion: string;
  recommendedAction?: string;
  createdAt: Date;
  externalUserId?: string;
  email?: string;
  context?: Record<string, unknown>;
}

export interface NewEvent extends StoredEvent {
  request: unknown;
  signals: unknown;
}

interface EventRow {
  id: string;
  event_type: string;
  verdict: Verdict;
  reasons: Reason[];
  policy_version: string;
  recommended_action: string | null;
  created_at: Date;
  external_user_id: string | null;
  email: string | null;
  context?: Record<string, unknown> | null;
}

const COLUMNS = `id, event_type, verdict, reasons, policy_version, recommended_action, created_at, external_user_id, email,
  request->'context' AS context`;

function fromRow(row: EventRow): StoredEvent {
  return {
    id: row.id,
    eventType: row.event_type,
    verdict: row.verdict,
    reasons: row.reasons,
    policyVersion: row.policy_version,
    recommendedAction: row.recommended_action ?? undefined,
    createdAt: row.created_at,
    externalUserId: row.external_user_id ?? undefined,
    email: row.email ?? undefined,
    context: row.context ?? undefined,
  };
}

// Parameters $1..$13, in the order of insertEventParams; the verdict's write embeds it in a CTE.
export const INSERT_EVENT_SQL = `INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version,
  recommended_action, created_at, external_user_id, email, request, signals)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`;

export function insertEventParams(scope: Scope, e: NewEvent): unknown[] {
  return [
    scope.tenantId, scope.mode, e.id, e.eventType, e.verdict, JSON.stringify(e.reasons), e.policyVersion,
    e.recommendedAction ?? null, e.createdAt, e.externalUserId ?? null, e.email ?? null,
    JSON.stringify(e.request), JSON.stringify(e.signals),
  ];
}

export async function findEvent(db: Queryable, scope: Scope, id: string): Promise<StoredEvent | undefined> {
  const { rows } = await db.query<EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3`,
    [scope.tenantId, scope.mode, id],
  );
  return rows[0] && fromRow(rows[0]);
}

export interface ListFilter {
  limit: number;
  eventType?: string;
  verdict?: Verdict;
  after?: { createdAt: Date; id: string };
}

// Newest first; keyset on (created_at, id), never OFFSET, so every page costs the same.
// Fetches one row more than asked to know whether another page exists.
export async function listEvents(db: Queryable, scope: Scope, f: ListFilter): Promise<{ events: StoredEvent[]; more: boolean }> {
  const params: unknown[] = [scope.tenantId, scope.mode];
  const where = ['tenant_id = $1', 'mode = $2'];
  if (f.eventType) where.push(`event_type = $${params.push(f.eventType)}`);
  if (f.verdict) where.push(`verdict = $${params.push(f.verdict)}`);
  if (f.after) {
    const t = params.push(f.after.createdAt);
    const i = params.push(f.after.id);
    where.push(`(created_at, id) < ($${t}, $${i})`);
  }
  const limit = params.push(f.limit + 1);
  const { rows } = await db.query<EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${limit}`,
    params,
  );
  return { events: rows.slice(0, f.limit).map(fromRow), more: rows.length > f.limit };
}

export type BindResult = 'bound' | 'same' | 'conflict' | 'missing';

// Write-once: binds only when unbound; reports what was there otherwise, in one statement.
export async function bindExternalUser(db: Queryable, scope: Scope, id: string, externalUserId: string): Promise<{ result: BindResult; event?: StoredEvent }> {
  const { rows } = await db.query<EventRow & { bound_now: boolean }>(
    `WITH updated AS (
       UPDATE events SET external_user_id = $4
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND external_user_id IS NULL
        RETURNING ${COLUMNS}, true AS bound_now)
     SELECT * FROM updated
     UNION ALL
     SELECT ${COLUMNS}, false AS bound_now FROM events
      WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND NOT EXISTS (SELECT 1 FROM updated)`,
    [scope.tenantId, scope.mode, id, externalUserId],
  );
  const row = rows[0];
  if (!row) return { result: 'missing' };
  const event = fromRow(row);
  if (row.bound_now) return { result: 'bound', event };
  return { result: row.external_user_id === externalUserId ? 'same' : 'conflict', event };
}
