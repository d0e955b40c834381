// The verdict's one read of Postgres before it decides (CONVENTIONS.md rule 4): the tenant's list
// entries matching the event's identifiers, and the links committed but not yet applied to the
// graph that share an account or an identifier with the event (docs/graph.md, "Fresh reads"), in
// one statement. Each table's part comes from its owner (lists/, graph/); this file composes them.
import type { Queryable } from '../db/queryable.js';
import type { ListHit } from '../engine/types.js';
import { pendingLinksSql } from '../graph/graph-outbox-store.js';
import type { PendingLink } from '../graph/identity-graph.js';
import { listMatchSql } from '../lists/list-store.js';
import type { Scope } from '../scope.js';

const READ_SQL = `
SELECT (SELECT coalesce(jsonb_agg(h), '[]'::jsonb) FROM (${listMatchSql({ tenantId: '$1', mode: '$2', kinds: '$3', values: '$4' })}) h) AS lists,
       (SELECT coalesce(jsonb_agg(p), '[]'::jsonb) FROM (${pendingLinksSql({ tenantId: '$1', mode: '$2', keys: '$5' })}) p) AS pending`;

export async function readListsAndPendingLinks(
  db: Queryable,
  scope: Scope,
  candidates: { kind: string; value: string }[],
  linkKeys: string[],
): Promise<{ lists: ListHit[]; pending: PendingLink[] }> {
  if (candidates.length === 0 && linkKeys.length === 0) return { lists: [], pending: [] };
  // Named: prepared once per connection (every verdict runs it).
  const { rows } = await db.query<{ lists: ListHit[]; pending: PendingLink[] }>({
    name: 'verdict-reads',
    text: READ_SQL,
    values: [scope.tenantId, scope.mode, candidates.map((c) => c.kind), candidates.map((c) => c.value), linkKeys],
  });
  return rows[0] ?? { lists: [], pending: [] };
}
