// One account (external user id) as an analyst reads it on its page: its events (newest first,
// a page at a time), counts by verdict, first and last seen, the identifiers it links to in the
// graph, its cluster's facts, and the feedback about it. Reads only; a graph that does not
// answer leaves the rest of the page working.
import neo4j from 'neo4j-driver';
import type { ConsoleDeps } from './console-deps.js';
import type { Scope } from '../scope.js';
import { AppError } from '../errors.js';
import { listEvents } from '../events/event-store.js';
import { listFeedback } from '../feedback/feedback-store.js';
import { encodeCursor } from '../db/keyset-cursor.js';
import { clusterFacts } from './cluster-picture.js';
import type { AccountDetail, ClusterFacts, Identifier } from './generated/console-wire.js';
import { consoleEvent } from './event-detail.js';

const EVENTS = 50;
const IDENTIFIERS = 200;

async function graphSide(
  deps: Pick<ConsoleDeps, 'graph' | 'cypher' | 'config' | 'logger'>,
  scope: Scope,
  account: string,
): Promise<{ identifiers: Identifier[]; cluster: ClusterFacts | null } | 'unavailable'> {
  try {
    const { records } = await deps.graph.executeQuery(
      deps.cypher.get('console/account-identifiers'),
      { ...scope, account, limit: neo4j.int(IDENTIFIERS) },
      {
        routing: neo4j.routing.READ,
        transactionConfig: { timeout: deps.config.consoleQueryTimeoutMs },
      },
    );
    const row = records[0]?.toObject();
    if (!row) return { identifiers: [], cluster: null };
    const cluster = row.clusterId ? ((await clusterFacts(deps, scope, row.clusterId as string)) ?? null) : null;
    return { identifiers: row.identifiers as Identifier[], cluster };
  } catch (err) {
    deps.logger.warn({ err: String(err) }, 'console: account graph side unavailable');
    return 'unavailable';
  }
}

export async function accountDetail(
  deps: Pick<ConsoleDeps, 'db' | 'graph' | 'cypher' | 'config' | 'logger'>,
  scope: Scope,
  account: string,
): Promise<AccountDetail> {
  const [page, stats, feedback, graph] = await Promise.all([
    listEvents(deps.db, scope, { limit: EVENTS, externalUserId: account }),
    deps.db.query<{
      events: number;
      allow: number;
      review: number;
      block: number;
      first_at: Date | null;
      last_at: Date | null;
      emails: string[] | null;
    }>(
      `SELECT count(*)::int AS events, count(*) FILTER (WHERE verdict = 'allow')::int AS allow,
              count(*) FILTER (WHERE verdict = 'review')::int AS review, count(*) FILTER (WHERE verdict = 'block')::int AS block,
              min(created_at) AS first_at, max(created_at) AS last_at,
              (array_agg(DISTINCT email) FILTER (WHERE email IS NOT NULL))[1:20] AS emails
         FROM events WHERE tenant_id = $1 AND mode = $2 AND external_user_id = $3`,
      [scope.tenantId, scope.mode, account],
    ),
    listFeedback(deps.db, scope, { externalUserId: account }),
    graphSide(deps, scope, account),
  ]);
  const s = stats.rows[0]!;
  if (s.events === 0 && graph !== 'unavailable' && graph.identifiers.length === 0 && !graph.cluster && feedback.length === 0) {
    throw new AppError('not_found', `No account ${account} in this tenant and mode.`);
  }
  const last = page.events.at(-1);
  return {
    external_user_id: account,
    events_total: s.events,
    verdicts: { allow: s.allow, review: s.review, block: s.block },
    first_seen_at: s.first_at?.toISOString() ?? null,
    last_seen_at: s.last_at?.toISOString() ?? null,
    emails: s.emails ?? [],
    events: page.events.map(consoleEvent),
    ...(page.more && last && { next_cursor: encodeCursor({ createdAt: last.createdAt, id: last.id }) }),
    identifiers: graph === 'unavailable' ? 'unavailable' : graph.identifiers,
    cluster: graph === 'unavailable' ? 'unavailable' : graph.cluster,
    feedback,
  };
}
