// Saved graph queries for analysts: the files of cypher/analyst/ (every tenant) and of
// cypher/analyst/tenants/<tenant id>/ (that tenant only), listed with the description and
// parameters their header states, and run read-only with the tenant and mode injected by the
// server, a timeout and a row cap. Analysts never send Cypher: on Community Edition a statement
// is not confined to a tenant by anything but its own text (no per-tenant databases, no
// row-level security), so only reviewed files run here. See docs/graph.md.
import neo4j, { isNode, isPath, isRelationship, type Node, type Relationship } from 'neo4j-driver';
import type { Scope } from '../scope.js';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';

type QueryDeps = Pick<Deps, 'graph' | 'cypher' | 'config'>;

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
  const description = text.replace(new RegExp(`^${id}:\\s*`), '').split(/\s+(?:Parameters|Returns):/)[0]!.trim();
  const parameters = [...section('Parameters').matchAll(/\$(\w+)(?:\s*\(([^)]*)\))?/g)]
    .filter((m) => !SERVER_PARAMS.has(m[1]!))
    .map((m) => ({ name: m[1]!, hint: m[2] ?? '' }));
  return { id, description, parameters, returns: section('Returns').replace(/\.$/, ''), catalogName };
}

// Tenant files shadow a shared file of the same name; another tenant's files do not exist here.
export function savedQueries(deps: Pick<Deps, 'cypher'>, tenantId: string): SavedQuery[] {
  const byId = new Map<string, SavedQuery>();
  const names = deps.cypher.names();
  for (const name of names.filter((n) => /^analyst\/[^/]+$/.test(n))) byId.set(name.slice('analyst/'.length), describe(name, deps.cypher.header(name)));
  const own = `analyst/tenants/${tenantId}/`;
  for (const name of names.filter((n) => n.startsWith(own) && !n.slice(own.length).includes('/'))) {
    byId.set(name.slice(own.length), describe(name, deps.cypher.header(name)));
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export function findSavedQuery(deps: Pick<Deps, 'cypher'>, tenantId: string, id: string): SavedQuery {
  const query = savedQueries(deps, tenantId).find((q) => q.id === id);
  if (!query) throw new AppError('not_found', `No saved query ${id}.`);
  return query;
}

// Graph values as plain JSON: nodes and relationships keep their labels, type and properties
// (tenantId and mode dropped: always the analyst's own), paths become their nodes and edges.
function plain(value: unknown): unknown {
  if (isNode(value as object)) {
    const n = value as Node;
    return { $node: { id: n.elementId, labels: n.labels, properties: unscoped(n.properties) } };
  }
  if (isRelationship(value as object)) {
    const r = value as Relationship;
    return { $rel: { id: r.elementId, type: r.type, start: r.startNodeElementId, end: r.endNodeElementId, properties: unscoped(r.properties) } };
  }
  if (isPath(value as object)) {
    const p = value as { segments: { start: Node; relationship: Relationship; end: Node }[]; start: Node };
    return { $path: { nodes: [p.start, ...p.segments.map((s) => s.end)].map(plain), rels: p.segments.map((s) => plain(s.relationship)) } };
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    if (typeof (value as { toString(): string }).toString === 'function' && value.constructor !== Object) return String(value);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

function unscoped(props: Record<string, unknown>): Record<string, unknown> {
  const { tenantId: _t, mode: _m, ...rest } = props;
  return plain(rest) as Record<string, unknown>;
}

export interface QueryResult {
  columns: string[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  ms: number;
}

export async function runSavedQuery(deps: QueryDeps, scope: Scope, query: SavedQuery, given: Record<string, unknown>): Promise<QueryResult> {
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
  const params = { ...given, tenantId: scope.tenantId, mode: scope.mode, limit: neo4j.int(limit) };
  const session = deps.graph.session({ defaultAccessMode: neo4j.session.READ });
  const started = performance.now();
  const rows: Record<string, unknown>[] = [];
  let columns: string[] = [];
  let truncated = false;
  try {
    const result = session.run(deps.cypher.get(query.catalogName), params, { timeout: deps.config.consoleQueryTimeoutMs });
    columns = [...(await result.keys())];
    for await (const record of result) {
      // The cap holds even for a query that ignores $limit: the rest is never read.
      if (rows.length === limit) {
        truncated = true;
        break;
      }
      rows.push(Object.fromEntries(columns.map((c) => [c, plain(record.get(c))])));
    }
  } catch (err) {
    throw graphError(err, deps.config.consoleQueryTimeoutMs);
  } finally {
    await session.close();
  }
  return { columns, rows, truncated, ms: Math.round(performance.now() - started) };
}

function graphError(err: unknown, timeoutMs: number): unknown {
  const code = String((err as { code?: string }).code ?? '');
  if (/TransactionTimedOut|Terminated/i.test(code)) {
    return AppError.invalid([{ path: '', message: `ran past the ${timeoutMs} ms limit` }], `The query ran past its ${timeoutMs} ms limit; narrow its parameters.`);
  }
  if (/AccessMode|ForbiddenOnReadOnly/i.test(code)) return new AppError('forbidden', 'This saved query tries to write; saved queries run read-only.');
  return err;
}
