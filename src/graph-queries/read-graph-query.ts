// Runs one analyst query against Neo4j, on a connection of the analysts' own (analyst-graph.ts):
// in a READ transaction (Neo4j refuses any write in it), with a timeout the server enforces and the
// client enforces too (the connection is cut a second past it), a row cap, and a cap on the bytes
// of rows held here, which the connection enforces as the bytes arrive; rows past either cap are
// never read (`truncated`). Graph values become plain JSON. Used by the reviewed files, the
// tenant's own saved queries and free-form Cypher alike.
import neo4j, { isNode, isPath, isRelationship, type Node, type Relationship } from 'neo4j-driver';
import { AppError } from '../errors.js';
import type { AnalystGraph } from '../graph/analyst-graph.js';

export interface QueryLimits {
  timeoutMs: number;
  rowCap: number;
  maxBytes: number;
}

export interface QueryResult {
  columns: string[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  ms: number;
  // Parameters the server changed before running (a saved query's $email, normalised).
  normalised?: Record<string, { given: string; used: string }>;
}

// Where a character of the text that ran came from in the analyst's own text (the guard's map),
// so Neo4j's errors point at what the analyst wrote.
export type PositionOf = (offset: number) => { line: number; column: number };

export async function readGraphQuery(
  graph: AnalystGraph,
  tenantId: string,
  text: string,
  params: Record<string, unknown>,
  limits: QueryLimits,
  positionOf?: PositionOf,
): Promise<QueryResult> {
  const started = performance.now();
  const rows: Record<string, unknown>[] = [];
  let columns: string[] = [];
  let truncated = false;
  let bytes = 0;
  await graph.run(tenantId, { timeoutMs: limits.timeoutMs, maxBytes: limits.maxBytes }, async ({ session, cut }) => {
    try {
      const tx = await session.beginTransaction({ timeout: limits.timeoutMs, metadata: { app: 'doorman-graph-query' } });
      try {
        const result = tx.run(text, params);
        columns = [...(await result.keys())];
        for await (const record of result) {
          const row = Object.fromEntries(columns.map((c) => [c, plain(record.get(c))]));
          bytes += JSON.stringify(row).length;
          // The caps hold whatever the statement asks for: the rest is never read.
          if (rows.length === limits.rowCap || bytes > limits.maxBytes) {
            truncated = true;
            break;
          }
          rows.push(row);
        }
      } finally {
        await tx.rollback().catch(() => undefined);
      }
    } catch (err) {
      // The connection was cut because the answer grew past the byte cap: what was read stands.
      if (cut() === 'bytes') {
        truncated = true;
        return;
      }
      if (cut() === 'deadline') throw timedOut(limits.timeoutMs);
      throw graphQueryError(err, limits.timeoutMs, positionOf);
    }
  });
  return { columns, rows, truncated, ms: Math.round(performance.now() - started) };
}

// Parameters from JSON: whole numbers become Cypher integers (LIMIT $n, comparisons with stored
// integers), lists and maps are converted member by member.
export function cypherParams(value: unknown): unknown {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return neo4j.int(value);
  if (Array.isArray(value)) return value.map(cypherParams);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cypherParams(v)]));
  return value;
}

// Graph values as plain JSON: nodes and relationships keep their labels, type and properties
// (tenantId and mode dropped: always the analyst's own), paths become their nodes and edges.
export function plain(value: unknown): unknown {
  if (isNode(value as object)) {
    const n = value as Node;
    return { $node: { id: n.elementId, labels: n.labels, properties: unscoped(n.properties) } };
  }
  if (isRelationship(value as object)) {
    const r = value as Relationship;
    return {
      $rel: { id: r.elementId, type: r.type, start: r.startNodeElementId, end: r.endNodeElementId, properties: unscoped(r.properties) },
    };
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

const timedOut = (timeoutMs: number) =>
  AppError.invalid(
    [{ path: '', message: `ran past the ${timeoutMs} ms limit` }],
    `The query ran past its ${timeoutMs} ms limit; narrow it (bound the path lengths, start from a known node).`,
  );

// Neo4j's refusals in the analyst's words, with the line and column of the analyst's own text
// where Neo4j names one. A client error is the analyst's to fix (400); so are the database errors
// that only a query's shape causes (the shortest-path rule, a stack overflow). A transient error
// stays retryable (503); anything else is ours (500).
export function graphQueryError(err: unknown, timeoutMs: number, positionOf?: PositionOf): unknown {
  const code = String((err as { code?: string }).code ?? '');
  const message = String((err as { message?: string }).message ?? '');
  if (/TransactionTimedOut|Terminated/i.test(code)) return timedOut(timeoutMs);
  if (/OutOfMemory|MemoryLimit|MemoryPool/i.test(code)) {
    return AppError.invalid(
      [{ path: '', message: 'used more memory than a query may' }],
      'The query used more memory than a query may (Neo4j db.memory.transaction.max); aggregate less or bound the paths.',
    );
  }
  if (/AccessMode|ForbiddenOnReadOnly/i.test(code))
    return new AppError('forbidden', 'This query tries to write; analyst queries run read-only.');
  const first = message.split('\n')[0]!.trim();
  const analysts =
    /^Neo\.ClientError\./.test(code) ||
    /shortest path algorithm does not work when the start and end nodes are the same/i.test(message) ||
    /StackOverflow/i.test(message);
  if (analysts) {
    const at = /\(line (\d+), column (\d+) \(offset: (\d+)\)\)/.exec(message);
    const where = at && positionOf ? positionOf(Number(at[3])) : undefined;
    const sentence = /shortest path/i.test(first) ? first.replace(/\.\s.*$/, '.') : first;
    const words =
      sentence.replace(/\s*\(line \d+, column \d+ \(offset: \d+\)\)/, '') +
      (/shortest path/i.test(first) ? ' Start and end are the same node for some row: add WHERE a <> b.' : '');
    const issue = where ? { path: '', message: words, line: where.line, column: where.column } : { path: '', message: words };
    return AppError.invalid([issue], `Neo4j refused the query: ${words}${where ? ` (line ${where.line}, column ${where.column})` : ''}`);
  }
  if (/^Neo\.TransientError\./.test(code) || /ServiceUnavailable|SessionExpired/.test(code)) {
    return AppError.unavailable(`Neo4j could not run the query just now (${code}); retry it.`);
  }
  return err;
}
