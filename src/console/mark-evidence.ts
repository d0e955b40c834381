// The "why" of a cluster's marks, in an analyst's terms: explainCluster's marks (outcome, time,
// path from the event or account the console was opened for) with who reported each and what they
// said. A feedback mark names its subject, its note and its reporter (an analyst through the
// console, else the API); a review's mark names the review, who resolved it and the note. A mark
// taken back stays listed with who took it back, when and why, as Postgres (the truth) records
// it: at once, before the graph writer has applied the retraction. Reads only.
import type { ConsoleDeps } from './console-deps.js';
import type { Scope } from '../scope.js';
import { explainCluster, type ExplainFrom } from '../graph/explain-cluster.js';
import type { Evidence } from './generated/console-wire.js';

export async function markEvidence(deps: Pick<ConsoleDeps, 'db' | 'graph' | 'cypher'>, scope: Scope, from: ExplainFrom): Promise<Evidence> {
  const explained = await explainCluster(deps, scope, from, { retracted: true });
  const feedbackIds = explained.marks.flatMap((m) => (m.feedback_id ? [m.feedback_id] : []));
  const reviewIds = explained.marks.flatMap((m) => (m.review_event_id ? [m.review_event_id] : []));
  const [feedback, reviews] = await Promise.all([
    deps.db.query<{
      id: string;
      subject_kind: string;
      subject_value: string;
      note: string | null;
      analyst: string | null;
      retracted_at: Date | null;
      retracted_by: string | null;
      retract_note: string | null;
    }>(
      `SELECT f.id, f.subject_kind, f.subject_value, f.note, f.retracted_at, f.retracted_by, f.retract_note,
              (SELECT a.analyst_email FROM console_audit a
                WHERE a.tenant_id = f.tenant_id AND a.mode = f.mode AND a.action = 'feedback'
                  AND a.subject = f.subject_kind || ':' || f.subject_value AND a.detail->>'outcome' = f.outcome
                ORDER BY a.at DESC LIMIT 1) AS analyst
         FROM feedback f WHERE f.tenant_id = $1 AND f.mode = $2 AND f.id = ANY($3::text[])`,
      [scope.tenantId, scope.mode, feedbackIds],
    ),
    deps.db.query<{
      event_id: string;
      resolved_by: string | null;
      note: string | null;
      external_user_id: string | null;
      marks_retracted_at: Date | null;
      marks_retracted_by: string | null;
      marks_retract_note: string | null;
    }>(
      `SELECT r.event_id, r.resolved_by, r.note, e.external_user_id, r.marks_retracted_at, r.marks_retracted_by, r.marks_retract_note
         FROM reviews r JOIN events e ON e.tenant_id = r.tenant_id AND e.mode = r.mode AND e.id = r.event_id
        WHERE r.tenant_id = $1 AND r.mode = $2 AND r.event_id = ANY($3::text[])`,
      [scope.tenantId, scope.mode, reviewIds],
    ),
  ]);
  const byFeedback = new Map(feedback.rows.map((f) => [f.id, f]));
  const byReview = new Map(reviews.rows.map((r) => [r.event_id, r]));
  const taken = (at: Date | null, by: string | null, note: string | null) =>
    at ? { retracted: { at: at.toISOString(), by: by ?? 'unknown', note } } : {};
  const marks = explained.marks.map(({ retracted_at, ...m }) => {
    const f = m.feedback_id ? byFeedback.get(m.feedback_id) : undefined;
    const r = m.review_event_id ? byReview.get(m.review_event_id) : undefined;
    if (f)
      return {
        ...m,
        subject_value: f.subject_value,
        note: f.note,
        reported_by: f.analyst ? `analyst ${f.analyst}` : 'the API (POST /v1/feedback)',
        ...taken(f.retracted_at, f.retracted_by, f.retract_note),
      };
    if (r)
      return {
        ...m,
        subject_value: r.external_user_id ?? m.review_event_id!,
        note: r.note,
        reported_by: r.resolved_by ? `review by ${r.resolved_by}` : 'a review',
        ...(r.resolved_by && { resolved_by: r.resolved_by }),
        ...taken(r.marks_retracted_at, r.marks_retracted_by, r.marks_retract_note),
      };
    // A mark Postgres no longer knows (its row erased): taken back if the graph says so.
    return {
      ...m,
      subject_value: null,
      note: null,
      reported_by: 'unknown',
      ...(retracted_at && { retracted: { at: retracted_at, by: 'unknown', note: null } }),
    };
  });
  return { ...explained, marks };
}
