// Analysts' own Cypher, from the console or `doorman graph query`: through the guard
// (cypher-guard.ts), run read-only in the analyst's scope with the caps of read-graph-query.ts,
// and audited whatever happens (the text, the parameters, the time, the rows, or the refusal).
// Also the tenant's own saved queries, which are analysts' text too and run the same way.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { audit, type Actor } from '../console/audit-store.js';
import { guardCypher, refusalOf } from './cypher-guard.js';
import { cypherParams, readGraphQuery, type QueryResult } from './read-graph-query.js';
import { savedQueries } from './saved-queries.js';
import { inTransaction } from '../db/queryable.js';
import type { Role } from '../console/auth/analyst-store.js';
import { deleteTenantQuery, insertTenantQuery, setFreeFormRoles } from './tenant-query-store.js';

type RunDeps = Pick<Deps, 'db' | 'graph' | 'config'>;

export interface AnalystCypher {
  text: string;
  params: Record<string, unknown>;
  // The tenant's saved query this text comes from, if any (named in the audit log).
  savedQuery?: string;
}

export interface AnalystResult extends QueryResult {
  // The guard's own cost: parse, check and rewrite.
  guardMs: number;
}

export async function runAnalystCypher(deps: RunDeps, actor: Actor, run: AnalystCypher): Promise<AnalystResult> {
  const started = performance.now();
  const record = (outcome: Record<string, unknown>) =>
    audit(deps.db, actor, 'cypher.run', run.savedQuery ?? null, { text: run.text, params: run.params, ms: Math.round(performance.now() - started), ...outcome });
  let guardMs = 0;
  let result: QueryResult;
  try {
    const guarded = await guardCypher(run.text, run.params);
    guardMs = round(performance.now() - started);
    const unknown = Object.keys(run.params).filter((k) => !guarded.parameters.includes(k));
    const missing = guarded.parameters.filter((p) => !Object.hasOwn(run.params, p));
    if (unknown.length > 0 || missing.length > 0) {
      throw AppError.invalid([
        ...unknown.map((k) => ({ path: `/params/${k}`, message: 'is not used by the statement' })),
        ...missing.map((p) => ({ path: `/params/${p}`, message: 'is required: the statement uses it' })),
      ], `Parameters: ${[...missing.map((p) => `$${p} is missing`), ...unknown.map((k) => `$${k} is not used`)].join('; ')}.`);
    }
    const params = { ...(cypherParams(run.params) as Record<string, unknown>), tenantId: actor.tenantId, mode: actor.mode };
    result = await readGraphQuery(deps.graph, guarded.text, params, {
      timeoutMs: deps.config.graphQueryTimeoutMs, rowCap: deps.config.graphQueryRowCap, maxBytes: deps.config.graphQueryMaxBytes,
    });
  } catch (err) {
    const refusal = refusalOf(err);
    await record(refusal ? { refused: refusal } : { error: err instanceof AppError ? err.message : 'internal error' }).catch(() => undefined);
    throw err;
  }
  await record({ rows: result.rows.length, truncated: result.truncated, guard_ms: guardMs });
  return { ...result, guardMs };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export interface SaveQuery {
  id: string;
  description: string;
  text: string;
}

// Stored as written, once the guard accepts it; runnable by the tenant's analysts. The row and its
// audit entry commit together.
export async function saveTenantQuery(deps: Pick<Deps, 'db' | 'cypher'>, actor: Actor, q: SaveQuery): Promise<{ id: string; parameters: string[] }> {
  const guarded = await guardCypher(q.text);
  if (savedQueries(deps, actor.tenantId).some((r) => r.id === q.id)) throw new AppError('conflict', `A reviewed query is called ${q.id}; choose another name.`);
  await inTransaction(deps.db, async (tx) => {
    const saved = await insertTenantQuery(tx, actor.tenantId, { id: q.id, description: q.description, cypher: q.text, parameters: guarded.parameters, createdBy: actor.analystEmail });
    if (!saved) throw new AppError('conflict', `This tenant already has a query called ${q.id}.`);
    await audit(tx, actor, 'query.save', q.id, { text: q.text, description: q.description });
  });
  return { id: q.id, parameters: guarded.parameters };
}

export async function removeTenantQuery(deps: Pick<Deps, 'db'>, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    if (!(await deleteTenantQuery(tx, actor.tenantId, id))) throw new AppError('not_found', `This tenant has no saved query ${id}.`);
    await audit(tx, actor, 'query.delete', id);
  });
}

// Who may run free-form Cypher in the tenant; the change and its audit entry commit together.
export async function chooseFreeFormRoles(deps: Pick<Deps, 'db'>, actor: Actor, roles: Role): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    await setFreeFormRoles(tx, actor.tenantId, roles, actor.analystEmail);
    await audit(tx, actor, 'cypher.settings', null, { free_form_roles: roles });
  });
}
