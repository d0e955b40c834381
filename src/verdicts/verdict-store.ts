// The verdict's one write (CONVENTIONS.md rule 4): the event, its idempotency record, its review (for a
// `review`) and its graph link (the outbox row the graph writer applies after commit), in one
// statement, so all or none of them exist, in one round trip. The event INSERT lives here only.
// With an Idempotency-Key, the record is inserted first and everything else hangs off it: a twin
// in flight makes this statement wait on the primary key until the twin commits, then write
// nothing; the caller answers with the twin's stored response.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { EventRecord } from '../event-record.js';
import type { GraphLink } from '../graph/identity-graph.js';
import { IDEMPOTENCY_TTL_HOURS } from './idempotency-store.js';

// The event as the verdict writes it: its decision, and the request and signals it was judged on.
export interface JudgedEvent extends EventRecord {
  request: unknown;
  signals: unknown;
}

export interface WriteExtras {
  idempotency?: { key: string; bodySha256: Buffer };
  // The exact response bytes, kept for a replay.
  response: string;
  link?: GraphLink;
}

const WRITE_SQL = `
WITH idempotency AS (
  INSERT INTO idempotency_keys AS k (tenant_id, mode, key, body_sha256, event_id, response, created_at, expires_at)
  SELECT $1, $2, $14, $15, $3, $16, $9, $9::timestamptz + make_interval(hours => $17)
   WHERE $14::text IS NOT NULL
  ON CONFLICT (tenant_id, mode, key) DO UPDATE
    SET body_sha256 = EXCLUDED.body_sha256, event_id = EXCLUDED.event_id, response = EXCLUDED.response,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
    WHERE k.expires_at <= EXCLUDED.created_at
  RETURNING 1),
proceed AS (SELECT 1 AS go WHERE $14::text IS NULL OR EXISTS (SELECT 1 FROM idempotency)),
event AS (
  INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version,
    recommended_action, created_at, external_user_id, email, request, signals, engine_version)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $19 FROM proceed
  RETURNING id),
review AS (
  INSERT INTO reviews (tenant_id, mode, event_id, created_at)
  SELECT $1, $2, id, $9 FROM event WHERE $5 = 'review'),
link AS (
  INSERT INTO graph_outbox (tenant_id, mode, kind, event_id, payload)
  SELECT $1, $2, 'link', id, $18 FROM event WHERE $18::jsonb IS NOT NULL)
SELECT count(*)::int AS written FROM event`;

// True when the event was written; false when an unexpired record for the key already existed
// (the caller replays it or answers 409).
export async function writeJudgedEvent(db: Queryable, scope: Scope, e: JudgedEvent, extra: WriteExtras): Promise<boolean> {
  // Named: prepared once per connection, so Postgres plans this statement once, not per verdict.
  const { rows } = await db.query<{ written: number }>({ name: 'write-judged-event', text: WRITE_SQL, values: [
    scope.tenantId, scope.mode, e.id, e.eventType, e.verdict, JSON.stringify(e.reasons), e.policyVersion,
    e.recommendedAction ?? null, e.createdAt, e.externalUserId ?? null, e.email ?? null,
    JSON.stringify(e.request), JSON.stringify(e.signals),
    extra.idempotency?.key ?? null, extra.idempotency?.bodySha256 ?? null, extra.response, IDEMPOTENCY_TTL_HOURS,
    extra.link ? JSON.stringify(extra.link) : null, e.engineVersion ?? null,
  ] });
  return rows[0]?.written === 1;
}
