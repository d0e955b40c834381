// The graph's one door for every other room: each kind of outbox row (a link, an account link, a
// mark, a forget, a scope delete) has one function here, which writes the row in the caller's
// transaction (or as one statement on the pool) and wakes the graph writers once it commits. The
// writers of this process register here, so a wake is a dependency (deps.graphOutbox), not a
// module-global. One mark builder (markOf) says what a feedback outcome or a review resolution
// does to a cluster, for the use cases and for a rebuild alike.
import type pg from 'pg';
import { afterCommit, type Queryable } from '../db/queryable.js';
import { NEVER_SUPPRESSED } from '../engine/never-suppressed.js';
import type { Scope } from '../scope.js';
import { emailIdentity } from '../signals/email/normalize-email.js';
import {
  deletePendingLinks,
  deletePendingMarks,
  insertGraphOps,
  type GraphForget,
  type GraphMark,
  type GraphOp,
  type GraphRecluster,
  type MarkOutcome,
} from './graph-outbox-store.js';
import type { GraphLink } from './identity-graph.js';

export const LANES = 16;
export const OUTBOX_CHANNEL = 'doorman_graph_outbox';

// What a writer shows the outbox: it can be poked (about one lane, or all), and it says which
// lanes it owns.
export interface WakeableWriter {
  poke(lane?: number): void;
  ownedLanes(): ReadonlySet<number>;
}

export interface GraphOutbox {
  // The graph link of a judged event (the verdict's own is a CTE of its statement: linkOutboxCte).
  link(db: Queryable, scope: Scope, link: GraphLink): Promise<void>;
  // The link a write-once user binding adds (PATCH /v1/events/{id}): the account joins the event's cluster.
  accountLink(db: Queryable, scope: Scope, link: GraphLink): Promise<void>;
  mark(db: Queryable, scope: Scope, mark: GraphMark): Promise<void>;
  // Takes a mark back (by its key): its clusters' facts are recomputed without it.
  retract(db: Queryable, scope: Scope, key: string, at: Date): Promise<void>;
  // Recomputes the scope's clusters under its link policy (`doorman graph recluster`).
  recluster(db: Queryable, scope: Scope, r: Omit<GraphRecluster, 'tenantId' | 'mode'>): Promise<void>;
  forget(db: Queryable, scope: Scope, forget: Omit<GraphForget, 'tenantId' | 'mode'>): Promise<void>;
  // Empties the scope's graph, in its lane's order (so before any row queued after it).
  deleteScope(db: Queryable, scope: Scope, at: Date): Promise<void>;
  // A rebuild's rows, in the order given.
  history(db: Queryable, scope: Scope, ops: GraphOp[]): Promise<void>;
  // Unapplied links of these events and marks on these accounts or emails (retention, erasure).
  dropPending(db: Queryable, scope: Scope, pending: { eventIds?: string[]; markAnchors?: string[] }): Promise<void>;
  // After a statement that embedded linkOutboxCte: wakes the writers (of `lane`, when known) once
  // `db` commits.
  written(db: Queryable, lane?: number): void;
  // A writer of this process, woken by every commit here; returns its unregistration.
  register(writer: WakeableWriter): () => void;
}

export function createGraphOutbox(pool: Pick<pg.Pool, 'query'>): GraphOutbox {
  const writers = new Set<WakeableWriter>();
  // The NOTIFY to other processes' writers: one in flight at a time, and one more after it if
  // commits came meanwhile, so a process answering hundreds of verdicts a second sends a
  // handful of NOTIFYs, not one per verdict (a writer reads everything waiting when woken).
  // The payload names the lanes that gained rows ('3,7'), or is empty for all of them.
  let notifying = false;
  let waiting: Set<number> | 'all' | undefined;
  const send = () => {
    if (notifying || waiting === undefined) return;
    const lanes = waiting;
    waiting = undefined;
    notifying = true;
    pool
      .query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, lanes === 'all' ? '' : [...lanes].join(',')])
      .catch(() => undefined)
      .finally(() => {
        notifying = false;
        send();
      });
  };
  const notifyOthers = (lane: number | undefined) => {
    waiting = lane === undefined || waiting === 'all' ? 'all' : (waiting ?? new Set<number>()).add(lane);
    send();
  };
  // Wakes this process's writers (of the lane, when known), and the other processes' through
  // NOTIFY unless this process owns the lane (a single instance never notifies).
  const wake = (lane?: number) => {
    let ownedHere = false;
    const owned = new Set<number>();
    for (const writer of writers) {
      writer.poke(lane);
      const lanes = writer.ownedLanes();
      if (lane !== undefined && lanes.has(lane)) ownedHere = true;
      for (const l of lanes) owned.add(l);
    }
    if (lane === undefined ? owned.size < LANES : !ownedHere) notifyOthers(lane);
  };
  const written = (db: Queryable, lane?: number) => afterCommit(db, () => wake(lane));
  const insert = async (db: Queryable, scope: Scope, ops: GraphOp[]) => {
    if (ops.length === 0) return;
    await insertGraphOps(db, scope, ops);
    written(db);
  };
  return {
    link: (db, scope, link) => insert(db, scope, [{ kind: 'link', payload: link }]),
    accountLink: (db, scope, link) => insert(db, scope, [{ kind: 'link', payload: link }]),
    mark: (db, scope, mark) => insert(db, scope, [{ kind: 'mark', payload: mark }]),
    retract: (db, scope, key, at) =>
      insert(db, scope, [{ kind: 'retract', payload: { tenantId: scope.tenantId, mode: scope.mode, key, at: at.getTime() } }]),
    recluster: (db, scope, r) => insert(db, scope, [{ kind: 'recluster', payload: { tenantId: scope.tenantId, mode: scope.mode, ...r } }]),
    forget: (db, scope, forget) =>
      insert(db, scope, [{ kind: 'forget', payload: { tenantId: scope.tenantId, mode: scope.mode, ...forget } }]),
    deleteScope: (db, scope, at) =>
      insert(db, scope, [{ kind: 'delete_scope', payload: { tenantId: scope.tenantId, mode: scope.mode, at: at.getTime() } }]),
    history: insert,
    async dropPending(db, scope, pending) {
      if (pending.eventIds?.length) await deletePendingLinks(db, scope, pending.eventIds);
      if (pending.markAnchors?.length) await deletePendingMarks(db, scope, pending.markAnchors);
    },
    written,
    register(writer) {
      writers.add(writer);
      return () => writers.delete(writer);
    },
  };
}

export type SubjectKind = 'event_id' | 'external_user_id' | 'email';

// The key of a feedback outcome's mark: one per (subject, outcome), as the feedback table's rows.
export const feedbackMarkKey = (kind: SubjectKind, value: string, outcome: MarkOutcome): string => `feedback:${kind}:${value}:${outcome}`;
// The key of a review resolution's mark (one per reviewed event), and back to the event's id.
export const reviewMarkKey = (eventId: string): string => `review:${eventId}`;
export const reviewOfMarkKey = (key: string): string | undefined => (key.startsWith('review:') ? key.slice('review:'.length) : undefined);
const ANCHOR = { event_id: 'event', external_user_id: 'account', email: 'email' } as const;

// The one mark builder. A feedback outcome is keyed by its subject and outcome (posted twice, it
// marks once); a review resolution by its event (a denial marks like confirmed_abuse, an approval
// like a false positive). Only a false positive suppresses codes: those that fired on the
// subject's events (feedback) or on the review (resolution), never the ones that always stand.
export function markOf(
  scope: Scope,
  m: {
    source: 'feedback' | 'review';
    subject: { kind: SubjectKind; value: string };
    outcome: MarkOutcome;
    at: Date;
    codes: string[];
  },
): GraphMark {
  const { kind, value } = m.subject;
  return {
    tenantId: scope.tenantId,
    mode: scope.mode,
    at: m.at.getTime(),
    key: m.source === 'review' ? reviewMarkKey(value) : feedbackMarkKey(kind, value, m.outcome),
    anchorKind: ANCHOR[kind],
    anchorValue: kind === 'email' ? (emailIdentity(value) ?? value) : value,
    outcome: m.outcome,
    codes: m.outcome === 'false_positive' ? [...new Set(m.codes)].filter((c) => !NEVER_SUPPRESSED.has(c)) : [],
  };
}
