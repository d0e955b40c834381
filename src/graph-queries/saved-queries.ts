// The reviewed saved queries: the files of cypher/analyst/ (every tenant) and of
// cypher/analyst/tenants/<tenant id>/ (that tenant only), listed with the description and
// parameters their header states, and run read-only with the tenant and mode injected by the
// server, a timeout and a row cap. Reviewed text runs as written (it scopes itself); what analysts
// write and save runs through the guard instead (run-analyst-cypher.ts). See docs/graph.md.
import neo4j from 'neo4j-driver';
import { readGraphQuery, type QueryResult } from './read-graph-query.js';
import type { Scope } from '../scope.js';
import type { Config } from '../config.js';
import type { AnalystGraph } from '../graph/analyst-graph.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';
import { AppError } from '../errors.js';
import { emailIdentity } from '../signals/email/normalize-email.js';

// What listing and running the reviewed queries needs; the composition root (src/deps.ts) passes its Deps.
export interface SavedQueryDeps {
  analystGraph: AnalystGraph;
  cypher: CypherCatalog;
  config: Pick<Config, 'consoleQueryRowCap' | 'consoleQueryTimeoutMs' | 'graphQueryMaxBytes'>;
}

export interface SavedQuery {
  id: string;
  description: string;
  parameters: { name: string; hint: string }[];
  returns: string;
  catalogName: string;
}

// Injected by the server, whatever the analyst sends.
const SERVER_PARAMS = new Set(['tenantId', 'mode', 'limit']);

function describe(catalogName: string, header: string): SavedQuery {
  const id = catalogName.split('/').pop()!;
  const text = header.replace(/\n/g, ' ');
  const section = (label: string) => text.match(new RegExp(`${label}:\\s*(.*?)(?=\\s+(?:Parameters|Returns):|$)`))?.[1]?.trim() ?? '';
  const description = text
    .replace(new RegExp(`^${id}:\\s*`), '')
    .split(/\s+(?:Parameters|Returns):/)[0]!
    .trim();
  const parameters = [...section('Parameters').matchAll(/\$(\w+)(?:\s*\(([^)]*)\))?/g)]
    .filter((m) => !SERVER_PARAMS.has(m[1]!))
    .map((m) => ({ name: m[1]!, hint: m[2] ?? '' }));
  return { id, description, parameters, returns: section('Returns').replace(/\.$/, ''), catalogName };
}

// Tenant files shadow a shared file of the same name; another tenant's files do not exist here.
export function savedQueries(deps: Pick<SavedQueryDeps, 'cypher'>, tenantId: string): SavedQuery[] {
  const byId = new Map<string, SavedQuery>();
  const names = deps.cypher.names();
  for (const name of names.filter((n) => /^analyst\/[^/]+$/.test(n)))
    byId.set(name.slice('analyst/'.length), describe(name, deps.cypher.header(name)));
  const own = `analyst/tenants/${tenantId}/`;
  for (const name of names.filter((n) => n.startsWith(own) && !n.slice(own.length).includes('/'))) {
    byId.set(name.slice(own.length), describe(name, deps.cypher.header(name)));
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export async function runSavedQuery(
  deps: SavedQueryDeps,
  scope: Scope,
  query: SavedQuery,
  given: Record<string, unknown>,
): Promise<QueryResult> {
  const cap = deps.config.consoleQueryRowCap;
  const unknown = Object.keys(given).filter((k) => k !== 'limit' && !query.parameters.some((p) => p.name === k));
  const missing = query.parameters.filter((p) => typeof given[p.name] !== 'string' || given[p.name] === '');
  if (unknown.length > 0 || missing.length > 0) {
    throw AppError.invalid([
      ...unknown.map((k) => ({ path: `/${k}`, message: 'is not a parameter of this query' })),
      ...missing.map((p) => ({ path: `/${p.name}`, message: 'is required' })),
    ]);
  }
  const limit = Math.min(cap, typeof given.limit === 'number' ? given.limit : cap);
  // An $email parameter is looked up as the graph keeps addresses (emailIdentity: lower case, and
  // without dots and plus-tags where the provider ignores them); the answer says what was used.
  const normalised: Record<string, { given: string; used: string }> = {};
  const email =
    typeof given.email === 'string' && query.parameters.some((p) => p.name === 'email') ? emailIdentity(given.email) : undefined;
  if (email !== undefined && email !== given.email) normalised.email = { given: given.email as string, used: email };
  const params = { ...given, ...(email !== undefined && { email }), tenantId: scope.tenantId, mode: scope.mode, limit: neo4j.int(limit) };
  const result = await readGraphQuery(deps.analystGraph, scope.tenantId, deps.cypher.get(query.catalogName), params, {
    timeoutMs: deps.config.consoleQueryTimeoutMs,
    rowCap: limit,
    maxBytes: deps.config.graphQueryMaxBytes,
  });
  return Object.keys(normalised).length > 0 ? { ...result, normalised } : result;
}
