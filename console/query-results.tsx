// Results of graph queries (saved and free-form): a table, the picture when the rows hold nodes,
// relationships or paths, and CSV with formula cells neutralised.
import type { Core } from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { looksLikeTime, plural, scalar, when } from './format';
import { draw, elements, type DrawEdge, type DrawNode } from './graph-drawing';
import type { QueryResult } from './types';

// What a saved query's run and a free-form one have in common (a saved query's answer may also
// name the parameters the server normalised: an $email, as the graph keeps addresses).
export type Result = Pick<QueryResult, 'columns' | 'rows' | 'truncated' | 'ms' | 'normalised'>;

// Columns whose text values are accounts (external user ids) or clusters, by their names.
const ACCOUNT_COLUMN = /^(account|accounts|other|others|external_?user_?id|externalId|user)$/i;
const CLUSTER_COLUMN = /^(cluster|clusters|cluster_?id)$/i;

// A result's value leads somewhere: an account to its page, a cluster to its picture, an event to
// its page, a node to what it is; a time (epoch ms) reads as one.
export function Cell({ column, value, row = {} }: { column: string; value: unknown; row?: Record<string, unknown> }): ComponentChildren {
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return value.map((v, i) => [i > 0 && ', ', <Cell column={column} value={v} />]);
  }
  // A row that says what its value is (the saved queries' label/kind columns): an account's value
  // is its external id.
  if (typeof value === 'string' && column === 'value' && (row.kind === 'account' || row.label === 'Account')) {
    return <a href={`/console/accounts/${encodeURIComponent(value)}`}>{value}</a>;
  }
  if (looksLikeTime(column, value)) return <span title={String(value)}>{when(value)}</span>;
  if (typeof value === 'string') {
    if (/^evt_[A-Za-z0-9]+$/.test(value)) return <a href={`/console/events/${encodeURIComponent(value)}`}>{value}</a>;
    if (CLUSTER_COLUMN.test(column)) return <a href={`/console/clusters/${encodeURIComponent(value)}`}>{value}</a>;
    if (ACCOUNT_COLUMN.test(column)) return <a href={`/console/accounts/${encodeURIComponent(value)}`}>{value}</a>;
  }
  if (value && typeof value === 'object' && '$node' in value) {
    const n = (value as { $node: GraphNode }).$node;
    if (n.labels.includes('Account') && typeof n.properties.externalId === 'string')
      return <a href={`/console/accounts/${encodeURIComponent(n.properties.externalId)}`}>{cellText(value)}</a>;
    if (n.labels.includes('Event') && typeof n.properties.id === 'string')
      return <a href={`/console/events/${encodeURIComponent(n.properties.id)}`}>{cellText(value)}</a>;
    if (n.labels.includes('Cluster') && typeof n.properties.id === 'string')
      return <a href={`/console/clusters/${encodeURIComponent(n.properties.id)}`}>{cellText(value)}</a>;
  }
  return cellText(value);
}

// A node of a query's picture, clicked: its labels and properties (times readable), and where it leads.
export function NodeFactsView({ node }: { node: DrawNode }) {
  const f = node.facts as Record<string, unknown>;
  const rows = Object.entries(f).filter(([k, v]) => !['key', 'label', 'tenantId', 'mode'].includes(k) && v !== null && v !== undefined);
  return (
    <div class="node-facts-view">
      <h3>{node.label}</h3>
      <dl class="facts">{rows.map(([k, v]) => [<dt>{k}</dt>, <dd>{looksLikeTime(k, v) ? when(v) : scalar(v)}</dd>])}</dl>
      {node.group === 'account' && typeof f.externalId === 'string' && (
        <p>
          <a href={`/console/accounts/${encodeURIComponent(f.externalId)}`}>Open the account</a>
        </p>
      )}
      {node.group === 'event' && typeof f.id === 'string' && (
        <p>
          <a href={`/console/events/${encodeURIComponent(f.id)}`}>Open the event</a>
        </p>
      )}
      {node.group === 'email' && typeof f.value === 'string' && (
        <p>
          <a href={`/console/events?email=${encodeURIComponent(f.value)}`}>Events with this email</a>
        </p>
      )}
    </div>
  );
}

type GraphNode = { id: string; labels: string[]; properties: Record<string, unknown> };
type GraphRel = { id: string; type: string; start: string; end: string };

// Every node and relationship anywhere in the rows (paths included).
export function collectGraph(rows: Record<string, unknown>[]): { nodes: DrawNode[]; edges: DrawEdge[] } {
  const nodes = new Map<string, DrawNode>();
  const edges: DrawEdge[] = [];
  const visit = (v: unknown): void => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(visit);
    const o = v as Record<string, unknown>;
    if (o.$node) {
      const n = o.$node as GraphNode;
      const p = n.properties;
      const group = n.labels.includes('Account')
        ? 'account'
        : p.hub
          ? 'hub'
          : n.labels.includes('Event')
            ? 'event'
            : ['email', 'device', 'card'].includes(String(p.kind))
              ? String(p.kind)
              : n.labels.includes('Identifier')
                ? 'identifier'
                : 'node';
      nodes.set(n.id, {
        id: n.id,
        label: String(p.externalId ?? p.value ?? p.id ?? n.labels[0]),
        group,
        facts: { labels: n.labels.join(', '), ...p },
      });
    } else if (o.$rel) {
      const r = o.$rel as GraphRel;
      edges.push({ from: r.start, to: r.end, type: r.type });
    } else if (o.$path) {
      const p = o.$path as { nodes: unknown[]; rels: unknown[] };
      p.nodes.forEach(visit);
      p.rels.forEach(visit);
    } else Object.values(o).forEach(visit);
  };
  rows.forEach(visit);
  return { nodes: [...nodes.values()], edges };
}

export const cellText = (v: unknown): string => {
  if (v && typeof v === 'object') {
    const o = v as Record<string, { labels?: string[]; properties?: Record<string, unknown>; nodes?: unknown[] }>;
    if (o.$node)
      return `(${o.$node.labels!.join(':')} ${scalar(o.$node.properties!.externalId ?? o.$node.properties!.value ?? o.$node.properties!.id)})`;
    if (o.$path) return `path of ${o.$path.nodes!.length} nodes`;
    if (o.$rel) return '[relationship]';
  }
  return scalar(v);
};

// A spreadsheet must not run what a cell says: cells that start like a formula get a quote (as the
// server's CSV of saved queries does).
export function toCsv(result: Result): string {
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return (
    [result.columns, ...result.rows.map((r) => result.columns.map((c) => r[c]))].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n'
  );
}

export function ResultView({ result, empty, picture = false }: { result: Result; empty: string; picture?: boolean }) {
  const first = picture && collectGraph(result.rows).nodes.length > 0 ? 'picture' : 'table';
  const [view, setView] = useState<'table' | 'picture'>(first);
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const [picked, setPicked] = useState<DrawNode | null>(null);
  const graph = collectGraph(result.rows);
  useEffect(() => setView(first), [result]);
  useEffect(() => {
    cy.current?.destroy();
    cy.current = null;
    setPicked(null);
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    if (view === 'picture' && box.current && graph.nodes.length > 0)
      void draw(box.current, elements(graph.nodes, graph.edges), (id) => setPicked(id ? (byId.get(id) ?? null) : null)).then((c) => {
        cy.current = c;
      });
  }, [view, result]);
  return (
    <div class="result-view">
      <p class="muted">
        {plural(result.rows.length, 'row')} in {result.ms} ms{result.truncated && ' (cut at the row cap)'}.
        {graph.nodes.length > 0 && (
          <span>
            {' '}
            <button type="button" class="link" onClick={() => setView(view === 'table' ? 'picture' : 'table')}>
              {view === 'table' ? 'Show as picture' : 'Show as table'}
            </button>
          </span>
        )}
      </p>
      {result.normalised &&
        Object.entries(result.normalised).map(([k, n]) => (
          <p class="notice normalised">
            Looked up {k} <code>{n.used}</code>, as the graph keeps it (you gave <code>{n.given}</code>).
          </p>
        ))}
      {view === 'picture' ? (
        <div class="picture-with-facts">
          <div class="graph small" ref={box} />
          <aside class="node-facts">{picked ? <NodeFactsView node={picked} /> : <p class="muted">Click a node for its facts.</p>}</aside>
        </div>
      ) : result.rows.length === 0 ? (
        <p class="empty">{empty}</p>
      ) : (
        <table class="rows result">
          <thead>
            <tr>
              {result.columns.map((c) => (
                <th>{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.rows.map((r) => (
              <tr>
                {result.columns.map((c) => (
                  <td>
                    <Cell column={c} value={r[c]} row={r} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
