// Why an event's cluster is what it is (`doorman graph explain`): the cluster, and every mark
// standing on it with its outcome, subject kind, time and the path of live links from the event
// to the mark's subject (cypher/graph/explain-event). Feedback marks name their feedback row;
// a review resolution's mark names its event.
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
  via: string[] | null;
  // The path's nodes as the console's cluster picture keys them (null: no live path).
  path: string[] | null;
}

export interface ClusterExplanation {
  event_id: string;
  cluster: { id: string; accounts: number } | null;
  marks: ExplainedMark[];
}

export async function explainCluster(deps: ExplainDeps, scope: Scope, eventId: string): Promise<ClusterExplanation> {
  const { rows: found } = await deps.db.query('SELECT 1 FROM events WHERE tenant_id = $1 AND mode = $2 AND id = $3', [
    scope.tenantId,
    scope.mode,
    eventId,
  ]);
  if (found.length === 0) throw new AppError('not_found', `No event ${eventId} in this tenant and mode.`);
  const { records } = await deps.graph.executeQuery(
    deps.cypher.get('graph/explain-event'),
    { ...scope, eventId },
    { routing: neo4j.routing.READ },
  );
  const r = records[0];
  if (!r) return { event_id: eventId, cluster: null, marks: [] };
  const marks = r.get('marks') as {
    key: string;
    outcome: MarkOutcome;
    at: number;
    via: string[] | null;
    path: string[] | null;
    subject: string;
  }[];
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
    event_id: eventId,
    cluster: { id: r.get('clusterId') as string, accounts: r.get('accounts') as number },
    marks: marks.map((m) => ({
      feedback_id: ids.get(m.key) ?? null,
      ...(reviewOfMarkKey(m.key) !== undefined && { review_event_id: reviewOfMarkKey(m.key) }),
      outcome: m.outcome,
      subject_kind: m.subject,
      marked_at: new Date(m.at).toISOString(),
      via: m.via,
      path: m.path,
    })),
  };
}
