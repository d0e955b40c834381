// SQL for list_entries.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { ListHit } from '../engine/types.js';
import type { ListKind } from './list-values.js';

export interface ListEntry {
  tenantId: string;
  mode: Scope['mode'];
  list: 'allow' | 'block';
  kind: string;
  value: string;
}

// Every entry of every tenant (list-directory.ts holds them in memory).
export async function allListEntries(db: Queryable): Promise<ListEntry[]> {
  const { rows } = await db.query<{ tenant_id: string; mode: Scope['mode']; list: 'allow' | 'block'; kind: string; value: string }>(
    'SELECT tenant_id, mode, list, kind, value FROM list_entries',
  );
  return rows.map((r) => ({ tenantId: r.tenant_id, mode: r.mode, list: r.list, kind: r.kind, value: r.value }));
}

export async function addListEntry(db: Queryable, scope: Scope, list: 'allow' | 'block', kind: ListKind, value: string): Promise<void> {
  await db.query('INSERT INTO list_entries (tenant_id, mode, list, kind, value) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING', [
    scope.tenantId,
    scope.mode,
    list,
    kind,
    value,
  ]);
}

export async function removeListEntry(
  db: Queryable,
  scope: Scope,
  list: 'allow' | 'block',
  kind: ListKind,
  value: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM list_entries WHERE tenant_id = $1 AND mode = $2 AND list = $3 AND kind = $4 AND value = $5',
    [scope.tenantId, scope.mode, list, kind, value],
  );
  return (rowCount ?? 0) > 0;
}

// Every entry matching one of the event's identifiers: one indexed query, bounded by the
// number of identifiers an event carries (what a verdict reads while list-directory.ts's memory
// is not trusted).
export async function matchLists(db: Queryable, scope: Scope, candidates: { kind: string; value: string }[]): Promise<ListHit[]> {
  if (candidates.length === 0) return [];
  // Named: prepared once per connection.
  const { rows } = await db.query<ListHit>({
    name: 'match-lists',
    text: `SELECT l.list, l.kind, l.value FROM list_entries l
       JOIN unnest($3::text[], $4::text[]) AS c(kind, value) ON l.kind = c.kind AND l.value = c.value
      WHERE l.tenant_id = $1 AND l.mode = $2`,
    values: [scope.tenantId, scope.mode, candidates.map((c) => c.kind), candidates.map((c) => c.value)],
  });
  return rows;
}
