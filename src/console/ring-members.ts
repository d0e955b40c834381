// The ring view: one page of a cluster's accounts, in the order they were first seen, each as an
// analyst weighs it: when it was first seen, its verdicts, its reviews (the pending ones by id, for
// the "deny the pending reviews" action), the marks standing about it and whether the graph counts
// it as confirmed. The graph says who is in the cluster and who is confirmed (confirmedAt, as the
// verdict's read counts it); Postgres says the rest. Reads only.
import neo4j from 'neo4j-driver';
import type { ConsoleDeps } from './console-deps.js';
import type { Scope } from '../scope.js';
import { AppError } from '../errors.js';
import type { RingMember, RingMembers } from './generated/console-wire.js';

// A page's accounts, and the pending reviews named per account (the counts cover all of them).
export const RING_PAGE = { limit: 100, pendingIds: 50 };

// The cursor: the (firstSeenAt, externalId) of the last account on a page.
const encode = (at: number, id: string): string => Buffer.from(JSON.stringify([at, id])).toString('base64url');
function decode(cursor: string): { at: number; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(at) && typeof id === 'string' && id.length <= 512) return { at: at as number, id };
  } catch {
    // Falls through to the error below.
  }
  throw AppError.invalid([{ path: '/cursor', message: 'is not a next_cursor from a previous page' }]);
}

export async function ringMembers(
  deps: Pick<ConsoleDeps, 'db' | 'graph' | 'cypher' | 'config'>,
  scope: Scope,
  clusterId: string,
  page: { cursor?: string; limit?: number },
): Promise<RingMembers> {
  const after = page.cursor ? decode(page.cursor) : null;
  const limit = Math.min(page.limit ?? RING_PAGE.limit, RING_PAGE.limit);
  const { records } = await deps.graph.executeQuery(
    deps.cypher.get('console/cluster-accounts'),
    { ...scope, clusterId, afterAt: after ? neo4j.int(after.at) : null, afterId: after?.id ?? '', limit: neo4j.int(limit + 1) },
    { routing: neo4j.routing.READ, transactionConfig: { timeout: deps.config.consoleQueryTimeoutMs } },
  );
  const row = records[0]?.toObject() as
    | { accounts: number; page: { externalId: string; firstSeenAt: number; confirmedAt: number | null }[] }
    | undefined;
  if (!row) throw new AppError('not_found', `No cluster ${clusterId} in this tenant and mode.`);
  const listed = row.page.slice(0, limit);
  const ids = listed.map((a) => a.externalId);
  const args = [scope.tenantId, scope.mode, ids];
  const [stats, reviews, marks] = await Promise.all([
    deps.db.query<{ acc: string; allow: number; review: number; block: number; first_at: Date }>(
      `SELECT external_user_id AS acc, count(*) FILTER (WHERE verdict = 'allow')::int AS allow,
              count(*) FILTER (WHERE verdict = 'review')::int AS review, count(*) FILTER (WHERE verdict = 'block')::int AS block,
              min(created_at) AS first_at
         FROM events WHERE tenant_id = $1 AND mode = $2 AND external_user_id = ANY($3::text[]) GROUP BY 1`,
      args,
    ),
    deps.db.query<{ acc: string; status: string; n: number; ids: string[]; marks: number }>(
      `SELECT e.external_user_id AS acc, r.status, count(*)::int AS n,
              (array_agg(r.event_id ORDER BY r.created_at, r.event_id))[1:${RING_PAGE.pendingIds}] AS ids,
              count(*) FILTER (WHERE r.marks_retracted_at IS NULL)::int AS marks
         FROM reviews r JOIN events e ON e.tenant_id = r.tenant_id AND e.mode = r.mode AND e.id = r.event_id
        WHERE r.tenant_id = $1 AND r.mode = $2 AND e.external_user_id = ANY($3::text[]) AND NOT e.request ? 'erased'
        GROUP BY 1, 2`,
      args,
    ),
    // Feedback standing about the account, one of its events or one of its emails.
    deps.db.query<{ acc: string; outcome: string; n: number }>(
      `WITH ev AS (SELECT external_user_id AS acc, id, lower(email) AS email FROM events
                    WHERE tenant_id = $1 AND mode = $2 AND external_user_id = ANY($3::text[])),
            subject AS (SELECT a AS acc, 'external_user_id' AS kind, a AS value FROM unnest($3::text[]) AS a
                        UNION SELECT acc, 'event_id', id FROM ev
                        UNION SELECT acc, 'email', email FROM ev WHERE email IS NOT NULL)
       SELECT s.acc, f.outcome, count(*)::int AS n
         FROM subject s JOIN feedback f ON f.tenant_id = $1 AND f.mode = $2 AND f.subject_kind = s.kind
          AND (CASE WHEN s.kind = 'email' THEN lower(f.subject_value) ELSE f.subject_value END) = s.value
        WHERE f.retracted_at IS NULL
        GROUP BY 1, 2`,
      args,
    ),
  ]);
  const byStats = new Map(stats.rows.map((s) => [s.acc, s]));
  const members: RingMember[] = listed.map((a) => {
    const s = byStats.get(a.externalId);
    const mine = reviews.rows.filter((r) => r.acc === a.externalId);
    const count = (status: string) => mine.find((r) => r.status === status)?.n ?? 0;
    const reviewMarks = (status: string) => mine.find((r) => r.status === status)?.marks ?? 0;
    const feedback = (outcome: string) => marks.rows.find((m) => m.acc === a.externalId && m.outcome === outcome)?.n ?? 0;
    return {
      external_user_id: a.externalId,
      first_seen_at: (s?.first_at ?? new Date(Number(a.firstSeenAt))).toISOString(),
      verdicts: { allow: s?.allow ?? 0, review: s?.review ?? 0, block: s?.block ?? 0 },
      reviews: { pending: count('pending'), approved: count('approved'), denied: count('denied') },
      pending_review_ids: mine.find((r) => r.status === 'pending')?.ids ?? [],
      // A denial marks confirmed abuse, an approval a false positive, until its marks are undone.
      marks: {
        confirmed_abuse: feedback('confirmed_abuse') + reviewMarks('denied'),
        false_positive: feedback('false_positive') + reviewMarks('approved'),
        chargeback: feedback('chargeback'),
      },
      confirmed: a.confirmedAt !== null && a.confirmedAt !== undefined,
    };
  });
  const last = listed.at(-1);
  return {
    cluster_id: clusterId,
    accounts_total: Number(row.accounts),
    members,
    ...(row.page.length > limit && last && { next_cursor: encode(Number(last.firstSeenAt), last.externalId) }),
  };
}
