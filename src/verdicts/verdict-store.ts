// The verdict's one write (CONVENTIONS.md rule 4): the event, its idempotency record, its review (for a
// `review`) and its graph link (the outbox row the graph writer applies after commit), in one
// statement, so all or none of them exist, in one round trip. Each part's SQL is its table's owner's
// (events/, reviews/, idempotency-store.ts, graph/); this file composes them.
// With an Idempotency-Key, the record is inserted first and everything else hangs off it: a twin
// in flight makes this statement wait on the primary key until the twin commits, then write
// nothing; the caller answers with the twin's stored response.
// Fresh reads (docs/graph.md): given the keys through which a waiting link would join the event,
// the statement first looks in the outbox, and at the links applied since the graph read began
// (kept a minute after they leave the outbox: the read may have begun before they were applied);
// if such a link joins the event, it writes nothing and returns those links, and the caller reads
// the graph again with them folded in, decides again and writes without the check. Steady traffic, where no such link waits, makes
// this one statement the verdict's only Postgres round trip.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { EventRecord } from '../event-record.js';
import { linkOutboxCte, pendingLinksSql } from '../graph/graph-outbox-store.js';
import { supersededPolicySql } from '../policies/documents/policy-store.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import { linkKeys, type GraphLink, type PendingLink } from '../graph/identity-graph.js';
import { judgedEventCte } from '../events/event-store.js';
import { pendingReviewCte } from '../reviews/review-store.js';
import { IDEMPOTENCY_TTL_HOURS, idempotencyRecordCte } from './idempotency-store.js';

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
  // The write's check for links that join the event and its graph read may have missed (absent:
  // no check): waiting in the outbox, or applied after `seen`.
  joining?: { joins: string[]; own: string[]; seen: number | null };
  // The policy version the event was judged by: the write refuses it once superseded (absent: no
  // check).
  policyVersion?: string;
}

// Not written: `joining` lists the waiting links that join the event, or is empty when an
// unexpired record for the key already existed.
// `superseded`: a policy was published for the scope after the one this event was judged by (the
// caller's memory of policies lagged, within MEMORY_STALENESS_MS): nothing was written, and the
// caller judges again under the policy in force.
export type WriteOutcome = { written: true } | { written: false; joining: PendingLink[]; superseded?: true };

// Each table's part comes from the store that owns the table (CONVENTIONS.md rule 14); this file
// composes them into one statement and names the parameters.
const WRITE_SQL = `
WITH joining AS (
  ${pendingLinksSql({ tenantId: '$1', mode: '$2', joins: '$20', own: '$21', seen: '$22' })}),
superseded AS (
  ${supersededPolicySql({ tenantId: '$1', mode: '$2', version: '$24' })}),
idempotency AS (
  ${idempotencyRecordCte({ tenantId: '$1', mode: '$2', key: '$14', bodySha256: '$15', eventId: '$3', response: '$16', createdAt: '$9', ttlHours: '$17', when: 'NOT EXISTS (SELECT 1 FROM joining) AND NOT EXISTS (SELECT 1 FROM superseded)' })}),
proceed AS (SELECT 1 AS go WHERE NOT EXISTS (SELECT 1 FROM joining) AND NOT EXISTS (SELECT 1 FROM superseded) AND ($14::text IS NULL OR EXISTS (SELECT 1 FROM idempotency))),
event AS (
  ${judgedEventCte({
    tenantId: '$1',
    mode: '$2',
    id: '$3',
    eventType: '$4',
    verdict: '$5',
    reasons: '$6',
    policyVersion: '$7',
    recommendedAction: '$8',
    createdAt: '$9',
    externalUserId: '$10',
    email: '$11',
    request: '$12',
    signals: '$13',
    engineVersion: '$19',
    source: 'proceed',
  })}),
review AS (
  ${pendingReviewCte({ tenantId: '$1', mode: '$2', createdAt: '$9', verdict: '$5', source: 'event' })}),
link AS (
  ${linkOutboxCte({ tenantId: '$1', mode: '$2', payload: '$18', keys: '$23', source: 'event' })})
SELECT (SELECT count(*)::int FROM event) AS written, (SELECT jsonb_agg(j) FROM joining j) AS joining, (SELECT lane FROM link) AS lane,
       EXISTS (SELECT 1 FROM superseded) AS superseded`;

// Written, or not: an unexpired record for the key already existed (the caller replays it or
// answers 409), or waiting links join the event (the caller decides again with them). A written
// link wakes the graph writers (through outbox).
export async function writeJudgedEvent(
  db: Queryable,
  outbox: Pick<GraphOutbox, 'written'>,
  scope: Scope,
  e: JudgedEvent,
  extra: WriteExtras,
): Promise<WriteOutcome> {
  // Named: prepared once per connection, so Postgres plans this statement once, not per verdict.
  const { rows } = await db.query<{ written: number; joining: PendingLink[] | null; lane: number | null; superseded: boolean }>({
    name: 'write-judged-event',
    text: WRITE_SQL,
    values: [
      scope.tenantId,
      scope.mode,
      e.id,
      e.eventType,
      e.verdict,
      JSON.stringify(e.reasons),
      e.policyVersion,
      e.recommendedAction ?? null,
      e.createdAt,
      e.externalUserId ?? null,
      e.email ?? null,
      JSON.stringify(e.request),
      JSON.stringify(e.signals),
      extra.idempotency?.key ?? null,
      extra.idempotency?.bodySha256 ?? null,
      extra.response,
      IDEMPOTENCY_TTL_HOURS,
      extra.link ? JSON.stringify(extra.link) : null,
      e.engineVersion ?? null,
      extra.joining?.joins ?? null,
      extra.joining?.own ?? [],
      extra.joining?.seen ?? null,
      extra.link ? linkKeys(extra.link) : null,
      extra.policyVersion ?? null,
    ],
  });
  if (rows[0]?.written === 1) {
    if (rows[0]!.lane !== null) outbox.written(db, rows[0]!.lane);
    return { written: true };
  }
  if (rows[0]?.superseded) return { written: false, joining: [], superseded: true };
  return { written: false, joining: rows[0]?.joining ?? [] };
}
