// SQL for the console's overview, a read model over events and webhook deliveries of one tenant
// and mode: verdicts per hour by outcome, the most frequent reason codes, and delivery health.
// Each query is a range scan of the events_newest / webhook_deliveries_newest index.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { ActivityCounts, Overview, VerdictCounts } from './generated/console-wire.js';

// Each hour is a UTC hour whatever the session's time zone (a zone half an hour off UTC would
// otherwise cut hours the chart and its links do not name), counted whole from the first.
export async function verdictsPerHour(db: Queryable, scope: Scope, firstHour: Date): Promise<Overview['verdicts_per_hour']> {
  const { rows } = await db.query<{ hour: Date; allow: number; review: number; block: number }>(
    `SELECT date_trunc('hour', created_at, 'UTC') AS hour,
            count(*) FILTER (WHERE verdict = 'allow')::int AS allow,
            count(*) FILTER (WHERE verdict = 'review')::int AS review,
            count(*) FILTER (WHERE verdict = 'block')::int AS block
       FROM events WHERE tenant_id = $1 AND mode = $2 AND created_at >= $3
      GROUP BY 1 ORDER BY 1`,
    [scope.tenantId, scope.mode, firstHour],
  );
  return rows.map((r) => ({ hour: r.hour.toISOString(), allow: r.allow, review: r.review, block: r.block }));
}

export async function topReasonCodes(db: Queryable, scope: Scope, since: Date, limit: number): Promise<Overview['top_reasons']> {
  const { rows } = await db.query<{ code: string; events: number }>(
    `SELECT r->>'code' AS code, count(*)::int AS events
       FROM events e CROSS JOIN LATERAL jsonb_array_elements(e.reasons) r
      WHERE e.tenant_id = $1 AND e.mode = $2 AND e.created_at >= $3
      GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $4`,
    [scope.tenantId, scope.mode, since, limit],
  );
  return rows;
}

export async function deliveryCounts(db: Queryable, scope: Scope, since: Date): Promise<Overview['webhook']['last_24h']> {
  const { rows } = await db.query<{ pending: number; delivered: number; failed: number; retrying: number }>(
    `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
            count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
            count(*) FILTER (WHERE status = 'failed')::int AS failed,
            count(*) FILTER (WHERE status = 'pending' AND attempts > 0)::int AS retrying
       FROM webhook_deliveries WHERE tenant_id = $1 AND mode = $2 AND created_at >= $3`,
    [scope.tenantId, scope.mode, since],
  );
  return rows[0] ?? { pending: 0, delivered: 0, failed: 0, retrying: 0 };
}

// "What changed?": the same counts over several windows (the last 24 h, the 24 h before, the same
// 24 h a week earlier), each a range scan of events_newest / the tables' own rows of the scope.
export interface Window {
  name: string;
  from: Date;
  to: Date;
}

const windowsSql = (ws: Window[], first: number): { values: string; params: unknown[] } => ({
  values: ws.map((_, i) => `($${first + i * 3}::text, $${first + i * 3 + 1}::timestamptz, $${first + i * 3 + 2}::timestamptz)`).join(', '),
  params: ws.flatMap((w) => [w.name, w.from, w.to]),
});

export async function verdictsByWindow(db: Queryable, scope: Scope, ws: Window[]): Promise<Record<string, VerdictCounts>> {
  const w = windowsSql(ws, 3);
  const { rows } = await db.query<{ name: string; allow: number; review: number; block: number }>(
    `SELECT w.name, count(*) FILTER (WHERE e.verdict = 'allow')::int AS allow, count(*) FILTER (WHERE e.verdict = 'review')::int AS review,
            count(*) FILTER (WHERE e.verdict = 'block')::int AS block
       FROM (VALUES ${w.values}) AS w(name, f, t)
       LEFT JOIN LATERAL (SELECT verdict FROM events WHERE tenant_id = $1 AND mode = $2 AND created_at >= w.f AND created_at < w.t) e ON true
      GROUP BY w.name`,
    [scope.tenantId, scope.mode, ...w.params],
  );
  return Object.fromEntries(rows.map((r) => [r.name, { allow: r.allow, review: r.review, block: r.block }]));
}

export async function reasonsByWindow(
  db: Queryable,
  scope: Scope,
  ws: Window[],
  limit: number,
): Promise<{ code: string; counts: Record<string, number> }[]> {
  const w = windowsSql(ws, 3);
  const { rows } = await db.query<{ name: string; code: string; events: number }>(
    `SELECT w.name, r->>'code' AS code, count(*)::int AS events
       FROM (VALUES ${w.values}) AS w(name, f, t)
       JOIN LATERAL (SELECT reasons FROM events WHERE tenant_id = $1 AND mode = $2 AND created_at >= w.f AND created_at < w.t) e ON true
       CROSS JOIN LATERAL jsonb_array_elements(e.reasons) r
      GROUP BY 1, 2`,
    [scope.tenantId, scope.mode, ...w.params],
  );
  const codes = new Map<string, Record<string, number>>();
  for (const r of rows) codes.set(r.code, { ...(codes.get(r.code) ?? {}), [r.name]: r.events });
  const first = ws[0]!.name;
  return [...codes.entries()]
    .map(([code, counts]) => ({ code, counts: Object.fromEntries(ws.map((x) => [x.name, counts[x.name] ?? 0])) }))
    .sort(
      (a, b) =>
        b.counts[first]! - a.counts[first]! ||
        Math.max(...Object.values(b.counts)) - Math.max(...Object.values(a.counts)) ||
        a.code.localeCompare(b.code),
    )
    .slice(0, limit);
}

// Reviews opened, approved and denied, feedback by outcome and retractions, resolutions whose marks
// were undone (taken back: the review stands), policy publications.
export async function activityByWindow(db: Queryable, scope: Scope, ws: Window[]): Promise<Record<string, ActivityCounts>> {
  const w = windowsSql(ws, 3);
  const { rows } = await db.query<{ name: string } & ActivityCounts>(
    `SELECT w.name,
            (SELECT count(*) FROM reviews WHERE tenant_id = $1 AND mode = $2 AND created_at >= w.f AND created_at < w.t)::int AS opened,
            (SELECT count(*) FROM reviews WHERE tenant_id = $1 AND mode = $2 AND status = 'approved' AND resolved_at >= w.f AND resolved_at < w.t)::int AS approved,
            (SELECT count(*) FROM reviews WHERE tenant_id = $1 AND mode = $2 AND status = 'denied' AND resolved_at >= w.f AND resolved_at < w.t)::int AS denied,
            (SELECT count(*) FROM feedback WHERE tenant_id = $1 AND mode = $2 AND outcome = 'confirmed_abuse' AND created_at >= w.f AND created_at < w.t)::int AS confirmed_abuse,
            (SELECT count(*) FROM feedback WHERE tenant_id = $1 AND mode = $2 AND outcome = 'false_positive' AND created_at >= w.f AND created_at < w.t)::int AS false_positive,
            (SELECT count(*) FROM feedback WHERE tenant_id = $1 AND mode = $2 AND outcome = 'chargeback' AND created_at >= w.f AND created_at < w.t)::int AS chargeback,
            (SELECT count(*) FROM feedback WHERE tenant_id = $1 AND mode = $2 AND retracted_at >= w.f AND retracted_at < w.t)::int AS retracted,
            (SELECT count(*) FROM reviews WHERE tenant_id = $1 AND mode = $2 AND marks_retracted_at >= w.f AND marks_retracted_at < w.t)::int AS marks_undone,
            (SELECT count(*) FROM policy_versions WHERE tenant_id = $1 AND mode = $2 AND published_at >= w.f AND published_at < w.t)::int AS policies
       FROM (VALUES ${w.values}) AS w(name, f, t)`,
    [scope.tenantId, scope.mode, ...w.params],
  );
  return Object.fromEntries(rows.map(({ name, ...counts }) => [name, counts]));
}

// The policy versions published in a window (newest first, at most 10): what changed the rules.
export async function publications(db: Queryable, scope: Scope, since: Date): Promise<Overview['compare']['publications']> {
  const { rows } = await db.query<{ policy_version: string; published_at: Date; note: string | null }>(
    `SELECT policy_version, published_at, note FROM policy_versions
      WHERE tenant_id = $1 AND mode = $2 AND published_at >= $3 ORDER BY published_at DESC LIMIT 10`,
    [scope.tenantId, scope.mode, since],
  );
  return rows.map((r) => ({ policy_version: r.policy_version, published_at: r.published_at.toISOString(), note: r.note }));
}

// The accounts first seen in a window (their first event falls in it), at most `cap`: the graph
// tells which clusters they made or grew.
export async function accountsFirstSeen(
  db: Queryable,
  scope: Scope,
  w: Pick<Window, 'from' | 'to'>,
  cap: number,
): Promise<{ accounts: string[]; capped: boolean }> {
  const { rows } = await db.query<{ external_user_id: string }>(
    `SELECT DISTINCT e.external_user_id FROM events e
      WHERE e.tenant_id = $1 AND e.mode = $2 AND e.created_at >= $3 AND e.created_at < $4 AND e.external_user_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM events p WHERE p.tenant_id = $1 AND p.mode = $2 AND p.external_user_id = e.external_user_id AND p.created_at < $3)
      LIMIT $5`,
    [scope.tenantId, scope.mode, w.from, w.to, cap + 1],
  );
  return { accounts: rows.slice(0, cap).map((r) => r.external_user_id), capped: rows.length > cap };
}
