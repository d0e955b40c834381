// Results of graph queries (saved and free-form): a table, the picture when the rows hold nodes,
// relationships or paths, and CSV with formula cells neutralised.
import type { Core } from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import { plural } from './format';
import { draw, elements, type DrawEdge, type DrawNode } from './graph-drawing';
import { kindOf, nameOfNode, nodeHref, TypedValue, type GraphNode, type GraphRel } from './typed-value';
import type { QueryResult } from './types';

// What a saved query's run and a free-form one have in common (a saved query's answer may also
// name the parameters the server normalised: an $email, as the graph keeps addresses).
export type Result = Pick<QueryResult, 'columns' | 'rows' | 'truncated' | 'ms' | 'normalised'>;

// A result's value typed by what it is (typed-value.tsx): a time in UTC, a node with its kind and
// its page, an id as a link.
export const Cell = ({ column, value, row = {} }: { column: string; value: unknown; row?: Record<string, unknown> }) => (
  <TypedValue name={column} value={value} source="graph" row={row} />
);

// A node of a query's picture, clicked: its kind, its properties (times readable, ids linked), and
// where it leads.
export function NodeFactsView({ node }: { node: DrawNode }) {
  const n = node.facts as unknown as GraphNode;
  const rows = Object.entries(n.properties).filter(([k, v]) => !['key', 'tenantId', 'mode'].includes(k) && v !== null && v !== undefined);
  const href = nodeHref(n);
  return (
    <div class="node-facts-view">
      <h3>{node.label}</h3>
      {!n.labels.includes('Identifier') && <p class="muted kind-line">{kindOf(n)}</p>}
      <dl class="facts">
        {rows.map(([k, v]) => [
          <dt>{k}</dt>,
          <dd>
            <TypedValue name={k} value={v} source="graph" />
          </dd>,
        ])}
      </dl>
      {href && (
        <p>
          <a href={href}>{OPEN[kindOf(n)] ?? 'What the graph knows of it'}</a>
        </p>
      )}
    </div>
  );
}

const OPEN: Record<string, string> = {
  Account: 'Open the account',
  Event: 'Open the event',
  Cluster: 'Open the cluster',
  Email: 'Its cluster (linked-to-email)',
  Card: 'Events with this card',
  Device: 'Accounts on this device',
};

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
      // An identifier is drawn with its kind, as the cluster picture draws it ("phone: +1555…").
      const name = nameOfNode(n) || n.labels[0]!;
      const label = n.labels.includes('Identifier') ? `${p.hub ? 'hub ' : ''}${kindOf(n).toLowerCase()}: ${name}` : name;
      nodes.set(n.id, { id: n.id, label, group, facts: n });
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
        <div class="result-table">
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
        </div>
      )}
    </div>
  );
}
