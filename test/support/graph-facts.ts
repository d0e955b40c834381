// What the stores hold for a tenant, read straight from them (never through a fault proxy): the
// events Postgres stored and the (:Event) nodes the identity graph has for them.
import type { Deps } from '../../src/deps.js';

export async function graphEventIds(deps: Pick<Deps, 'graph'>, tenantId: string): Promise<string[]> {
  const { records } = await deps.graph.executeQuery('MATCH (e:Event {tenantId: $tenantId, mode: "test"}) RETURN e.id AS id ORDER BY id', {
    tenantId,
  });
  return records.map((r) => r.get('id') as string);
}

export async function storedEventIds(deps: Pick<Deps, 'db'>, tenantId: string): Promise<string[]> {
  const { rows } = await deps.db.query<{ id: string }>("SELECT id FROM events WHERE tenant_id = $1 AND mode = 'test' ORDER BY id", [
    tenantId,
  ]);
  return rows.map((r) => r.id);
}
