// SQL reading a scope's stored history for `doorman graph rebuild`: events in judgement order, page
// by page; feedback and review resolutions (few) at once. What they become in the graph is queued
// through src/graph/graph-outbox.ts.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';

export interface StoredForReplay {
  id: string;
  eventType: string;
  createdAt: Date;
  externalUserId: string | null;
  request: { email?: string; identity?: Record<string, string>; payment?: { card_fingerprint?: string; card_country?: string } };
  deviceId: string | null;
}

export async function eventsPage(db: Queryable, scope: Scope, after: { createdAt: Date; id: string } | undefined, limit: number): Promise<StoredForReplay[]> {
  const { rows } = await db.query<{ id: string; event_type: string; created_at: Date; external_user_id: string | null; request: StoredForReplay['request']; device_id: string | null }>(
    `SELECT id, event_type, created_at, external_user_id, request, signals->>'deviceId' AS device_id FROM events
      WHERE tenant_id = $1 AND mode = $2 AND ($3::timestamptz IS NULL OR (created_at, id) > ($3, $4))
      ORDER BY created_at, id LIMIT $5`,
    [scope.tenantId, scope.mode, after?.createdAt ?? null, after?.id ?? '', limit],
  );
  return rows.map((r) => ({ id: r.id, eventType: r.event_type, createdAt: r.created_at, externalUserId: r.external_user_id, request: r.request, deviceId: r.device_id }));
}

export interface StoredOutcome {
  at: Date;
  kind: 'feedback' | 'resolution';
  subjectKind: 'event_id' | 'external_user_id' | 'email';
  value: string;
  outcome: 'confirmed_abuse' | 'false_positive' | 'chargeback';
  // Codes a false_positive suppresses: the subject's events' (feedback) or the review's (resolution).
  codes: string[];
}

export async function storedOutcomes(db: Queryable, scope: Scope): Promise<StoredOutcome[]> {
  const { rows } = await db.query<{ at: Date; kind: StoredOutcome['kind']; subject_kind: StoredOutcome['subjectKind']; value: string; outcome: StoredOutcome['outcome']; codes: string[] | null }>(
    `SELECT f.created_at AS at, 'feedback' AS kind, f.subject_kind, f.subject_value AS value, f.outcome,
            (SELECT array_agg(DISTINCT r->>'code') FROM (SELECT reasons FROM events e
               WHERE e.tenant_id = f.tenant_id AND e.mode = f.mode
                 AND CASE f.subject_kind WHEN 'event_id' THEN e.id = f.subject_value WHEN 'external_user_id' THEN e.external_user_id = f.subject_value
                     ELSE lower(e.email) = lower(f.subject_value) END
               ORDER BY e.created_at DESC LIMIT 100) x, jsonb_array_elements(x.reasons) r) AS codes
       FROM feedback f WHERE f.tenant_id = $1 AND f.mode = $2
     UNION ALL
     SELECT v.resolved_at, 'resolution', 'event_id', v.event_id, CASE v.status WHEN 'denied' THEN 'confirmed_abuse' ELSE 'false_positive' END,
            CASE v.status WHEN 'approved' THEN (SELECT array_agg(r->>'code') FROM jsonb_array_elements(e.reasons) r) END
       FROM reviews v JOIN events e ON e.tenant_id = v.tenant_id AND e.mode = v.mode AND e.id = v.event_id
      WHERE v.tenant_id = $1 AND v.mode = $2 AND v.status <> 'pending'
     ORDER BY 1`,
    [scope.tenantId, scope.mode],
  );
  return rows.map((r) => ({ at: r.at, kind: r.kind, subjectKind: r.subject_kind, value: r.value, outcome: r.outcome, codes: r.codes ?? [] }));
}
