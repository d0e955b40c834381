// Results of graph queries (saved and free-form): a table, the picture when the rows hold nodes,
// relationships or paths, and CSV with formula cells neutralised.
import type { Core } from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import { scalar } from './format';
import { draw, elements, type DrawEdge, type DrawNode } from './graph-drawing';

export interface Result {
  columns: string[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  ms: number;
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
      const group = n.labels.includes('Account') ? 'account' : p.hub ? 'hub' : n.labels.includes('Event') ? 'event' : ['email', 'device', 'card'].includes(String(p.kind)) ? String(p.kind) : n.labels.includes('Identifier') ? 'identifier' : 'node';
      nodes.set(n.id, { id: n.id, label: String(p.externalId ?? p.value ?? p.id ?? n.labels[0]), group, facts: { labels: n.labels.join(', '), ...p } });
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
    if (o.$node) return `(${o.$node.labels!.join(':')} ${scalar(o.$node.properties!.externalId ?? o.$node.properties!.value ?? o.$node.properties!.id)})`;
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
  return [result.columns, ...result.rows.map((r) => result.columns.map((c) => r[c]))].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}

export function ResultView({ result, empty }: { result: Result; empty: string }) {
  const [view, setView] = useState<'table' | 'picture'>('table');
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const graph = collectGraph(result.rows);
  useEffect(() => setView('table'), [result]);
  useEffect(() => {
    cy.current?.destroy();
    cy.current = null;
    if (view === 'picture' && box.current && graph.nodes.length > 0) void draw(box.current, elements(graph.nodes, graph.edges), () => undefined).then((c) => { cy.current = c; });
  }, [view, result]);
  return (
    <div class="result-view">
      <p class="muted">{result.rows.length} rows in {result.ms} ms{result.truncated && ' (cut at the row cap)'}.
        {graph.nodes.length > 0 && <span> <button type="button" class="link" onClick={() => setView(view === 'table' ? 'picture' : 'table')}>{view === 'table' ? 'Show as picture' : 'Show as table'}</button></span>}</p>
      {view === 'picture' ? <div class="graph small" ref={box} /> : result.rows.length === 0 ? <p class="empty">{empty}</p> : (
        <table class="rows result"><thead><tr>{result.columns.map((c) => <th>{c}</th>)}</tr></thead>
          <tbody>{result.rows.map((r) => <tr>{result.columns.map((c) => <td>{cellText(r[c])}</td>)}</tr>)}</tbody></table>
      )}
    </div>
  );
}
