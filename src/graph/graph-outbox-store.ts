// SQL for graph_outbox, the one table of what the identity graph must gain or lose: written in the
// same transaction as the row that causes it (an event, a binding, a feedback outcome, a review
// resolution, a retention batch, an erasure, a rebuild) and applied after commit by the graph
// writer, lane by lane, in seq order; applied rows are deleted, an applied link moving to
// graph_applied_links for a minute (the verdict's check, below). Only src/graph/ writes these
// tables (CONVENTIONS.md rule 13); other rooms go through graph-outbox.ts.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import { linkKeys, type GraphLink, type PendingLink } from './identity-graph.js';
import type { KindLinkPolicy } from './link-policy.js';

export type MarkOutcome = 'confirmed_abuse' | 'false_positive' | 'chargeback';

// A feedback outcome or a review resolution, applied to the subject's cluster(s) once per key.
export interface GraphMark {
  tenantId: string;
  mode: string;
  key: string;
  at: number;
  anchorKind: 'event' | 'account' | 'email';
  anchorValue: string;
  outcome: MarkOutcome;
  // Codes a false_positive suppresses on the cluster (empty for the other outcomes).
  codes: string[];
}

// Events or a person removed from the graph (retention, erasure; src/lifecycle/).
export interface GraphForget {
  tenantId: string;
  mode: string;
  at: number;
  eventIds: string[];
  accounts: string[];
  ids: { kind: string; value: string }[];
  feedbackKeys: string[];
  erasureId: string | null;
}

// The whole of a scope's graph removed, in the lane's order (`doorman graph rebuild`).
export interface GraphScopeDelete {
  tenantId: string;
  mode: string;
  at: number;
}

// A mark taken back (`doorman feedback retract`): its clusters' facts are recomputed without it.
export interface GraphRetract {
  tenantId: string;
  mode: string;
  key: string;
  at: number;
}

// A scope's clusters recomputed from its links under the current link policy (`doorman graph
// recluster`); `id` names the (:Recluster) record the command reads its counts from.
export interface GraphRecluster {
  tenantId: string;
  mode: string;
  at: number;
  id: string;
  default: KindLinkPolicy;
  kinds: Record<string, KindLinkPolicy>;
  // Clusters whose facts are recomputed even if their members stay (`doorman graph verify --repair`).
  recompute?: string[];
}

export type GraphOp =
  | { kind: 'link'; payload: GraphLink }
  | { kind: 'mark'; payload: GraphMark }
  | { kind: 'forget'; payload: GraphForget }
  | { kind: 'delete_scope'; payload: GraphScopeDelete }
  | { kind: 'retract'; payload: GraphRetract }
  | { kind: 'recluster'; payload: GraphRecluster };

export type OutboxRow = { seq: string } & GraphOp;

// The verdict's link as a data-modifying CTE of the verdict's one statement (CONVENTIONS.md
// departure 2): inserted for each row of `source` (which returns the event's `id`) when the
// payload parameter is not null; returns the row's lane (the writer of that lane is woken).
// The caller names its parameters.
// `keys`: what the link joins (identity-graph.ts linkKeys, the one builder of those keys), by
// which the pending links a verdict joins are found.
export function linkOutboxCte(p: { tenantId: string; mode: string; payload: string; keys: string; source: string }): string {
  return `INSERT INTO graph_outbox (tenant_id, mode, kind, event_id, payload, keys)
  SELECT ${p.tenantId}, ${p.mode}, 'link', id, ${p.payload}, ${p.keys}::text[] FROM ${p.source} WHERE ${p.payload}::jsonb IS NOT NULL
  RETURNING lane`;
}

// The links that share a key with `joins` and bring a key not in `own`, committed and not yet
// applied, or applied after the seq `seen` (the scope's last applied link when the verdict's graph
// read began: cypher/graph/read-cluster's appliedSeq; null: none known, every kept link counts).
// A verdict reads the graph as if they were applied (docs/graph.md, "Fresh reads"): a link the
// writer applied after the read began is in neither the read nor the outbox, so applied links are
// kept a minute (KEEP_APPLIED_LINKS_SECONDS), far past a verdict's read-to-write time (a signal deadline
// of at most 10 s, a pool wait of at most 3 s).
// The query's text, for a statement that composes it (the verdict's write checks it first,
// src/verdicts/verdict-store.ts); the caller names its parameters. A null `joins` finds none.
// Bounded: among the newest 1,000 rows waiting in the scope's lane (read backwards on the lane's
// index) and the newest 1,000 of the scope's kept links past `seen`, at most 200 that join the
// event.
export function pendingLinksSql(p: { tenantId: string; mode: string; joins: string; own: string; seen: string }): string {
  return `SELECT account, ids, keys FROM (
           SELECT o.payload->>'account' AS account, o.payload->'ids' AS ids, o.keys FROM (
            SELECT tenant_id, mode, kind, payload, keys FROM graph_outbox
             WHERE lane = (hashtext(${p.tenantId} || ':' || ${p.mode}) & 15) AND failed_at IS NULL
               AND ${p.joins}::text[] IS NOT NULL
             ORDER BY seq DESC LIMIT 1000) o
           WHERE o.tenant_id = ${p.tenantId} AND o.mode = ${p.mode} AND o.kind = 'link'
             AND o.keys && ${p.joins}::text[] AND NOT (o.keys <@ ${p.own}::text[])
           UNION ALL
           SELECT k.account, k.ids, k.keys FROM (
            SELECT account, ids, keys FROM graph_applied_links
             WHERE tenant_id = ${p.tenantId} AND mode = ${p.mode} AND seq > coalesce(${p.seen}::bigint, 0)
               AND ${p.joins}::text[] IS NOT NULL
             ORDER BY seq DESC LIMIT 1000) k
           WHERE k.keys && ${p.joins}::text[] AND NOT (k.keys <@ ${p.own}::text[])) joining
           LIMIT 200`;
}

// How long an applied link stays in graph_applied_links.
export const KEEP_APPLIED_LINKS_SECONDS = 60;

export async function pendingLinksJoining(
  db: Queryable,
  scope: Scope,
  joins: string[],
  own: string[] = [],
  seen: number | null = null,
): Promise<PendingLink[]> {
  if (joins.length === 0) return [];
  const { rows } = await db.query<PendingLink>(pendingLinksSql({ tenantId: '$1', mode: '$2', joins: '$3', own: '$4', seen: '$5' }), [
    scope.tenantId,
    scope.mode,
    joins,
    own,
    seen,
  ]);
  return rows;
}

// Inserts the ops in the order given (they are applied in that order: seq follows it).
export async function insertGraphOps(db: Queryable, scope: Scope, ops: GraphOp[]): Promise<void> {
  if (ops.length === 0) return;
  await db.query(
    `INSERT INTO graph_outbox (tenant_id, mode, kind, event_id, payload, keys)
     SELECT $1, $2, u.kind, u.event_id, u.payload, CASE WHEN u.kind = 'link' THEN ARRAY(SELECT jsonb_array_elements_text(u.keys)) END
       FROM unnest($3::text[], $4::text[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY AS u(kind, event_id, payload, keys, n)
      ORDER BY u.n`,
    [
      scope.tenantId,
      scope.mode,
      ops.map((o) => o.kind),
      ops.map((o) => (o.kind === 'link' ? o.payload.eventId : null)),
      ops.map((o) => JSON.stringify(o.payload)),
      ops.map((o) => (o.kind === 'link' ? JSON.stringify(linkKeys(o.payload)) : null)),
    ],
  );
}

// Unapplied links of these events (retention, erasure: they would write removed values), and
// those kept since applied. In this order, as two statements: a link the writer is moving when
// the first runs is waited for, and the second, reading after it, finds it kept.
export async function deletePendingLinks(db: Queryable, scope: Scope, eventIds: string[]): Promise<void> {
  await db.query(`DELETE FROM graph_outbox WHERE tenant_id = $1 AND mode = $2 AND kind = 'link' AND event_id = ANY($3)`, [
    scope.tenantId,
    scope.mode,
    eventIds,
  ]);
  await db.query(`DELETE FROM graph_applied_links WHERE tenant_id = $1 AND mode = $2 AND event_id = ANY($3)`, [
    scope.tenantId,
    scope.mode,
    eventIds,
  ]);
}

// Unapplied marks anchored on these accounts or emails (erasure).
export async function deletePendingMarks(db: Queryable, scope: Scope, anchors: string[]): Promise<void> {
  if (anchors.length === 0) return;
  await db.query(`DELETE FROM graph_outbox WHERE tenant_id = $1 AND mode = $2 AND kind = 'mark' AND payload->>'anchorValue' = ANY($3)`, [
    scope.tenantId,
    scope.mode,
    anchors,
  ]);
}

// Whether an erasure's forget row still waits in the outbox (or was set aside as failed).
export async function forgetState(db: Queryable, erasureId: string): Promise<'waiting' | 'failed' | 'applied'> {
  const { rows } = await db.query<{ failed: boolean }>(
    `SELECT failed_at IS NOT NULL AS failed FROM graph_outbox WHERE kind = 'forget' AND payload->>'erasureId' = $1`,
    [erasureId],
  );
  return rows.length === 0 ? 'applied' : rows[0]!.failed ? 'failed' : 'waiting';
}

export async function nextBatch(db: Queryable, lane: number, limit: number): Promise<OutboxRow[]> {
  // Named: prepared once on the writer's session (it runs for every batch).
  const { rows } = await db.query<OutboxRow>({
    name: 'next-outbox-batch',
    text: `SELECT seq, kind, payload FROM graph_outbox WHERE lane = $1 AND failed_at IS NULL ORDER BY seq LIMIT $2`,
    values: [lane, limit],
  });
  return rows;
}

// Deletes applied rows, keeping the links a minute in graph_applied_links (the verdict's check,
// pendingLinksSql), in the same statement, so a link is always in one of the two tables; purges
// the kept links of these rows' lanes older than that. Returns how long each row waited from its
// insert to now (the link lag), ms.
export async function deleteApplied(db: Queryable, seqs: string[]): Promise<number[]> {
  const { rows } = await db.query<{ lag_ms: number }>({
    name: 'delete-applied-outbox',
    text: `WITH applied AS (
       DELETE FROM graph_outbox WHERE seq = ANY($1::bigint[])
       RETURNING seq, tenant_id, mode, lane, kind, event_id, keys, payload, created_at),
     kept AS (
       INSERT INTO graph_applied_links (seq, tenant_id, mode, event_id, keys, account, ids)
       SELECT seq, tenant_id, mode, event_id, coalesce(keys, '{}'), payload->>'account', coalesce(payload->'ids', '[]') FROM applied WHERE kind = 'link'
       ON CONFLICT (seq) DO NOTHING),
     purged AS (
       DELETE FROM graph_applied_links
        WHERE lane IN (SELECT DISTINCT lane FROM applied) AND applied_at < clock_timestamp() - make_interval(secs => $2))
     SELECT (extract(epoch FROM clock_timestamp() - created_at) * 1000)::float8 AS lag_ms FROM applied`,
    values: [seqs, KEEP_APPLIED_LINKS_SECONDS],
  });
  return rows.map((r) => r.lag_ms);
}

export async function markFailed(db: Queryable, seq: string, error: string): Promise<void> {
  await db.query(`UPDATE graph_outbox SET failed_at = clock_timestamp(), error = $2 WHERE seq = $1`, [seq, error.slice(0, 2000)]);
}

// Of the given lanes, those with rows waiting.
export async function lanesWithWork(db: Queryable, lanes: number[]): Promise<number[]> {
  const { rows } = await db.query<{ lane: number }>(
    `SELECT l AS lane FROM unnest($1::int[]) AS l
      WHERE EXISTS (SELECT 1 FROM graph_outbox WHERE lane = l AND failed_at IS NULL)`,
    [lanes],
  );
  return rows.map((r) => r.lane);
}

// Rows not yet applied, for a scope (tests, the console) or in all (operators, the bench).
export async function pendingGraphOps(db: Queryable, scope?: Scope): Promise<number> {
  const { rows } = scope
    ? await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM graph_outbox WHERE tenant_id = $1 AND mode = $2 AND failed_at IS NULL`,
        [scope.tenantId, scope.mode],
      )
    : await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM graph_outbox WHERE failed_at IS NULL`);
  return rows[0]?.n ?? 0;
}
