// What was learned about stored events after they were judged, as labels for a backtest:
// feedback (`confirmed_abuse`, `chargeback`: abusive; `false_positive`: good) on the event, its
// account (external user id) or email, or its cluster (the cluster id stored in the event's
// signals, as it stood when judged), and review resolutions (`reviews.status`: denied is
// abusive, approved is good). Nearer evidence wins: the event itself, then its account or
// email, then its cluster; at the same distance, abusive wins.
import { emailIdentity } from '../../signals/email/normalize-email.js';
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import type { StoredDecision } from '../replay/stored-decisions.js';

export type Label = 'abusive' | 'good';

interface Evidence {
  events: Map<string, Label>;
  accounts: Map<string, Label>;
  emails: Map<string, Label>;
  clusters: Map<string, Label>;
}

const labelOfOutcome = (outcome: string): Label => (outcome === 'false_positive' ? 'good' : 'abusive');

// Abusive beats good at the same distance.
function mark(map: Map<string, Label>, key: string, label: Label): void {
  if (map.get(key) !== 'abusive') map.set(key, label);
}

export type LabelOf = (d: Pick<StoredDecision, 'id' | 'externalUserId' | 'email' | 'signals'>) => Label | undefined;

export async function loadLabels(db: Queryable, scope: Scope): Promise<LabelOf> {
  const ev: Evidence = { events: new Map(), accounts: new Map(), emails: new Map(), clusters: new Map() };
  const params = [scope.tenantId, scope.mode];
  const [feedback, clusters, reviews] = await Promise.all([
    db.query<{ subject_kind: string; subject_value: string; outcome: string }>(
      'SELECT subject_kind, subject_value, outcome FROM feedback WHERE tenant_id = $1 AND mode = $2',
      params,
    ),
    // The clusters of the subjects' events, one indexed lookup per subject kind.
    db.query<{ outcome: string; cluster_id: string }>(
      `SELECT DISTINCT f.outcome, e.signals->'graph'->>'clusterId' AS cluster_id
         FROM feedback f
         JOIN LATERAL (
           SELECT signals FROM events e WHERE e.tenant_id = f.tenant_id AND e.mode = f.mode AND f.subject_kind = 'event_id' AND e.id = f.subject_value
           UNION ALL
           SELECT signals FROM events e WHERE e.tenant_id = f.tenant_id AND e.mode = f.mode AND f.subject_kind = 'external_user_id' AND e.external_user_id = f.subject_value
           UNION ALL
           SELECT signals FROM events e WHERE e.tenant_id = f.tenant_id AND e.mode = f.mode AND f.subject_kind = 'email' AND lower(e.email) = lower(f.subject_value)
         ) e ON true
        WHERE f.tenant_id = $1 AND f.mode = $2 AND e.signals->'graph'->>'clusterId' IS NOT NULL`,
      params,
    ),
    db.query<{ event_id: string; status: string }>(
      `SELECT event_id, status FROM reviews WHERE tenant_id = $1 AND mode = $2 AND status IN ('approved', 'denied')`,
      params,
    ),
  ]);
  for (const f of feedback.rows) {
    const label = labelOfOutcome(f.outcome);
    if (f.subject_kind === 'event_id') mark(ev.events, f.subject_value, label);
    else if (f.subject_kind === 'external_user_id') mark(ev.accounts, f.subject_value, label);
    else mark(ev.emails, emailIdentity(f.subject_value) ?? f.subject_value, label);
  }
  for (const c of clusters.rows) mark(ev.clusters, c.cluster_id, labelOfOutcome(c.outcome));
  for (const r of reviews.rows) mark(ev.events, r.event_id, r.status === 'denied' ? 'abusive' : 'good');

  return (d) => {
    const own = ev.events.get(d.id);
    if (own) return own;
    const account = d.externalUserId === undefined ? undefined : ev.accounts.get(d.externalUserId);
    // Normalising costs a few microseconds an event: only when some feedback is about an email.
    const email = d.email === undefined || ev.emails.size === 0 ? undefined : ev.emails.get(emailIdentity(d.email) ?? d.email);
    if (account === 'abusive' || email === 'abusive') return 'abusive';
    if (account || email) return 'good';
    const cluster = d.signals.graph?.clusterId;
    return cluster === undefined ? undefined : ev.clusters.get(cluster);
  };
}
