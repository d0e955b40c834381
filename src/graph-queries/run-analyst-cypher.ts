// Analysts' own Cypher, from the console or `doorman graph query`: through the guard
// (cypher-guard.ts), run read-only in the analyst's scope with the caps of read-graph-query.ts,
// and audited whatever happens (the text, the parameters, the time, the rows, or the refusal).
// Also the tenant's own saved queries, which are analysts' text too and run the same way.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { audit, completeAudit, type Actor } from '../audit/audit-store.js';
import { guardCypher, refusalOf } from './cypher-guard.js';
import { cypherParams, readGraphQuery, type QueryResult } from './read-graph-query.js';
import { savedQueries } from './saved-queries.js';
import { inTransaction } from '../db/queryable.js';
import type { Role } from '../roles.js';
import { deleteTenantQuery, insertTenantQuery, setFreeFormRoles } from './tenant-query-store.js';
import type { AnalystGraph } from '../graph/analyst-graph.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';

// What analysts' own Cypher and the tenant's saved queries need; the composition root (src/deps.ts)
// passes its Deps.
export interface AnalystCypherDeps {
  db: pg.Pool;
  analystGraph: AnalystGraph;
  cypher: CypherCatalog;
  config: Pick<Config, 'graphQueryTimeoutMs' | 'graphQueryRowCap' | 'graphQueryMaxBytes'>;
  logger: Logger;
}

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

// The audit entry is written before anything runs, and nothing runs, and no refusal or error
// reaches the analyst, if it cannot be written. What became of the run is added after.
export async function runAnalystCypher(
  deps: Pick<AnalystCypherDeps, 'db' | 'analystGraph' | 'config' | 'logger'>,
  actor: Actor,
  run: AnalystCypher,
): Promise<AnalystResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const entry = { text: run.text, params: run.params };
  const unaudited = (err: unknown) => {
    deps.logger.error(
      { err: (err as Error).message, tenantId: actor.tenantId },
      'could not write the audit entry of an analyst query; it did not run',
    );
    return AppError.unavailable('The audit log cannot be written just now, so the query did not run; retry it.');
  };
  let guarded: Awaited<ReturnType<typeof guardCypher>>;
  try {
    guarded = await guardCypher(run.text, run.params);
    const unknown = Object.keys(run.params).filter((k) => !guarded.parameters.includes(k));
    const missing = guarded.parameters.filter((p) => !Object.hasOwn(run.params, p));
    if (unknown.length > 0 || missing.length > 0) {
      throw AppError.invalid(
        [
          ...unknown.map((k) => ({ path: `/params/${k}`, message: 'is not used by the statement' })),
          ...missing.map((p) => ({ path: `/params/${p}`, message: 'is required: the statement uses it' })),
        ],
        `Parameters: ${[...missing.map((p) => `$${p} is missing`), ...unknown.map((k) => `$${k} is not used`)].join('; ')}.`,
      );
    }
  } catch (err) {
    const refusal = refusalOf(err);
    try {
      await audit(deps.db, actor, 'cypher.run', run.savedQuery ?? null, {
        ...entry,
        ms: ms(),
        ...(refusal ? { refused: refusal } : { error: err instanceof AppError ? err.message : 'internal error' }),
      });
    } catch (auditErr) {
      throw unaudited(auditErr);
    }
    throw err;
  }
  const guardMs = round(performance.now() - started);
  let id: string;
  try {
    id = await audit(deps.db, actor, 'cypher.run', run.savedQuery ?? null, { ...entry, started: true });
  } catch (auditErr) {
    throw unaudited(auditErr);
  }
  const complete = (outcome: Record<string, unknown>) =>
    completeAudit(deps.db, id, { ...outcome, ms: ms() }).catch((err: unknown) =>
      deps.logger.warn({ err: (err as Error).message, audit: id }, 'could not add the outcome to an audit entry'),
    );
  let result: QueryResult;
  try {
    const params = { ...(cypherParams(run.params) as Record<string, unknown>), tenantId: actor.tenantId, mode: actor.mode };
    result = await readGraphQuery(
      deps.analystGraph,
      actor.tenantId,
      guarded.text,
      params,
      {
        timeoutMs: deps.config.graphQueryTimeoutMs,
        rowCap: deps.config.graphQueryRowCap,
        maxBytes: deps.config.graphQueryMaxBytes,
      },
      guarded.positionOf,
    );
  } catch (err) {
    await complete({ error: err instanceof AppError ? err.message : 'internal error' });
    throw err;
  }
  await complete({ rows: result.rows.length, truncated: result.truncated, guard_ms: guardMs });
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
export async function saveTenantQuery(
  deps: Pick<AnalystCypherDeps, 'db' | 'cypher'>,
  actor: Actor,
  q: SaveQuery,
): Promise<{ id: string; parameters: string[] }> {
  const guarded = await guardCypher(q.text);
  if (savedQueries(deps, actor.tenantId).some((r) => r.id === q.id))
    throw new AppError('conflict', `A reviewed query is called ${q.id}; choose another name.`);
  await inTransaction(deps.db, async (tx) => {
    const saved = await insertTenantQuery(tx, actor.tenantId, {
      id: q.id,
      description: q.description,
      cypher: q.text,
      parameters: guarded.parameters,
      createdBy: actor.analystEmail,
    });
    if (!saved) throw new AppError('conflict', `This tenant already has a query called ${q.id}.`);
    await audit(tx, actor, 'query.save', q.id, { text: q.text, description: q.description });
  });
  return { id: q.id, parameters: guarded.parameters };
}

export async function removeTenantQuery(deps: Pick<AnalystCypherDeps, 'db'>, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    if (!(await deleteTenantQuery(tx, actor.tenantId, id))) throw new AppError('not_found', `This tenant has no saved query ${id}.`);
    await audit(tx, actor, 'query.delete', id);
  });
}

// Who may run free-form Cypher in the tenant; the change and its audit entry commit together.
export async function chooseFreeFormRoles(deps: Pick<AnalystCypherDeps, 'db'>, actor: Actor, roles: Role): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    await setFreeFormRoles(tx, actor.tenantId, roles, actor.analystEmail);
    await audit(tx, actor, 'cypher.settings', null, { free_form_roles: roles });
  });
}
