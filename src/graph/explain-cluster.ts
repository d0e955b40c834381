// Why a cluster is what it is (`doorman graph explain`, the console's evidence): the cluster of an
// event or an account (or one named), and every mark on it with its outcome, subject kind, time
// and the path of live links from the event or account to the mark's subject
// (cypher/graph/explain-cluster). Feedback marks name their feedback row; a review resolution's
// mark names its event. Marks taken back are left out unless asked for (the console lists them
// struck through).
import type pg from 'pg';
import neo4j, { type Driver } from 'neo4j-driver';
import type { Scope } from '../scope.js';
import { AppError } from '../errors.js';
import type { CypherCatalog } from './cypher-catalog.js';
import { feedbackMarkKey, reviewOfMarkKey, type SubjectKind } from './graph-outbox.js';
import type { MarkOutcome } from './graph-outbox-store.js';

// What explaining a cluster needs; the composition root (src/deps.ts) passes its Deps.
export interface ExplainDeps {
  db: pg.Pool;
  graph: Driver;
  cypher: CypherCatalog;
}

export interface ExplainedMark {
  feedback_id: string | null;
  review_event_id?: string;
  outcome: MarkOutcome;
  subject_kind: string;
  marked_at: string;
  // When the mark was taken back, as the graph applied it (asked for with `retracted`).
  retracted_at?: string;
  // The subject, and the account or identifier a path to it ends at, as the picture keys them.
  subject_key: string;
  target_key: string | null;
  via: string[] | null;
  // The path's nodes as the console's cluster picture keys them (null: no live path).
  path: string[] | null;
}

export interface ClusterExplanation {
  event_id?: string;
  account?: string;
  cluster: { id: string; accounts: number } | null;
  marks: ExplainedMark[];
}

// Where an explanation starts: an event, an account, or a cluster alone (no paths).
export type ExplainFrom = { eventId: string } | { account: string } | { clusterId: string };

export async function explainCluster(
  deps: ExplainDeps,
  scope: Scope,
  from: ExplainFrom,
  options: { retracted?: boolean } = {},
): Promise<ClusterExplanation> {
  if ('eventId' in from) {
    const { rows: found } = await deps.db.query('SELECT 1 FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3', [
      scope.tenantId,
      scope.mode,
      from.eventId,
    ]);
    if (found.length === 0) throw new AppError('not_found', `No event ${from.eventId} in this tenant and mode.`);
  }
  const { records } = await deps.graph.executeQuery(
    deps.cypher.get('graph/explain-cluster'),
    {
      ...scope,
      eventId: 'eventId' in from ? from.eventId : null,
      account: 'account' in from ? from.account : null,
      clusterId: 'clusterId' in from ? from.clusterId : null,
    },
    { routing: neo4j.routing.READ },
  );
  const start = 'eventId' in from ? { event_id: from.eventId } : 'account' in from ? { account: from.account } : {};
  const r = records[0];
  if (!r) return { ...start, cluster: null, marks: [] };
  const marks = (
    r.get('marks') as {
      key: string;
      outcome: MarkOutcome;
      at: number;
      retractedAt: number | null;
      via: string[] | null;
      path: string[] | null;
      subject: string;
      subjectKey: string;
      targetKey: string | null;
    }[]
  ).filter((m) => options.retracted || m.retractedAt === null);
  // A feedback mark's key is feedback:<kind>:<value>:<outcome> (feedbackMarkKey); the value may hold colons.
  const subjects = marks
    .filter((m) => m.key.startsWith('feedback:'))
    .map((m) => {
      const rest = m.key.slice('feedback:'.length);
      const kind = rest.slice(0, rest.indexOf(':'));
      return { kind, value: rest.slice(kind.length + 1, rest.lastIndexOf(':')), outcome: rest.slice(rest.lastIndexOf(':') + 1) };
    });
  const { rows } = await deps.db.query<{ id: string; subject_kind: SubjectKind; subject_value: string; outcome: MarkOutcome }>(
    `SELECT f.id, f.subject_kind, f.subject_value, f.outcome FROM feedback f
       JOIN unnest($3::text[], $4::text[], $5::text[]) AS s(kind, value, outcome)
         ON f.subject_kind = s.kind AND f.subject_value = s.value AND f.outcome = s.outcome
      WHERE f.tenant_id = $1 AND f.mode = $2`,
    [scope.tenantId, scope.mode, subjects.map((x) => x.kind), subjects.map((x) => x.value), subjects.map((x) => x.outcome)],
  );
  const ids = new Map(rows.map((f) => [feedbackMarkKey(f.subject_kind, f.subject_value, f.outcome), f.id]));
  return {
    ...start,
    cluster: { id: r.get('clusterId') as string, accounts: r.get('accounts') as number },
    marks: marks.map((m) => ({
      feedback_id: ids.get(m.key) ?? null,
      ...(reviewOfMarkKey(m.key) !== undefined && { review_event_id: reviewOfMarkKey(m.key) }),
      outcome: m.outcome,
      subject_kind: m.subject,
      marked_at: new Date(m.at).toISOString(),
      ...(m.retractedAt !== null && { retracted_at: new Date(m.retractedAt).toISOString() }),
      subject_key: m.subjectKey,
      target_key: m.targetKey,
      via: m.via,
      path: m.path,
    })),
  };
}
