// What `npm test`'s last stage (scripts/verify-graphs.ts: `doorman graph verify` over every scope
// the suite created) must know about a test's tenant: the hub threshold its servers ran with, when
// not the default (the operator's ceiling is configuration, not stored), or that the test leaves
// its graph different from Postgres on purpose, and why. A test table, not a migration: only the
// suite's databases have it.
import type { Queryable } from '../../src/db/queryable.js';

export const GRAPH_SCOPES_TABLE =
  'CREATE TABLE IF NOT EXISTS test_graph_scopes (tenant_id text PRIMARY KEY, hub_threshold int, drift text)';

export async function noteGraphScope(db: Queryable, tenantId: string, note: { hubThreshold?: number; drift?: string }): Promise<void> {
  await db.query(GRAPH_SCOPES_TABLE);
  await db.query(
    `INSERT INTO test_graph_scopes (tenant_id, hub_threshold, drift) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id) DO UPDATE SET hub_threshold = coalesce(EXCLUDED.hub_threshold, test_graph_scopes.hub_threshold),
       drift = coalesce(EXCLUDED.drift, test_graph_scopes.drift)`,
    [tenantId, note.hubThreshold ?? null, note.drift ?? null],
  );
}
