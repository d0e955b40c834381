// Saved graph queries (cypher/analyst/): listed with their description and parameters, run
// read-only by the server with the tenant and mode injected; results as a table, as a picture
// when they hold nodes or paths, and as a CSV download.
import type { Core } from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, qs } from './api';
import { scalar } from './format';
import { draw, elements, type DrawEdge, type DrawNode } from './graph-drawing';

interface Query {
  id: string;
  description: string;
  parameters: { name: string; hint: string }[];
  returns: string;
}

interface Result {
  columns: string[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  ms: number;
}

type GraphNode = { id: string; labels: string[]; properties: Record<string, unknown> };
type GraphRel = { id: string; type: string; start: string; end: string };

// Every node and relationship anywhere in the rows (paths included).
function collectGraph(rows: Record<string, unknown>[]): { nodes: DrawNode[]; edges: DrawEdge[] } {
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

const cellText = (v: unknown): string => {
  if (v && typeof v === 'object') {
    const o = v as Record<string, { labels?: string[]; properties?: Record<string, unknown>; nodes?: unknown[] }>;
    if (o.$node) return `(${o.$node.labels!.join(':')} ${scalar(o.$node.properties!.externalId ?? o.$node.properties!.value ?? o.$node.properties!.id)})`;
    if (o.$path) return `path of ${o.$path.nodes!.length} nodes`;
    if (o.$rel) return '[relationship]';
  }
  return scalar(v);
};

export function QueriesPage({ selected }: { selected?: string }) {
  const [list, setList] = useState<{ queries: Query[]; row_cap: number; timeout_ms: number } | null>(null);
  useEffect(() => void api<typeof list>('/queries').then(setList), []);
  if (!list) return <p class="loading">Loading saved queries…</p>;
  const query = list.queries.find((q) => q.id === selected);
  return (
    <div class="queries-page">
      <nav class="query-list">
        <h1>Graph queries</h1>
        {list.queries.length === 0 && <p class="empty">No saved queries. An operator adds <code>.cypher</code> files to <code>cypher/analyst/</code> and restarts Doorman.</p>}
        <ul>{list.queries.map((q) => <li class={q.id === selected ? 'current' : ''}><a href={`/console/queries/${q.id}`}><strong>{q.id}</strong></a><br /><span class="muted">{q.description}</span></li>)}</ul>
        <p class="hint">Run read-only in your tenant and mode, at most {list.row_cap} rows and {list.timeout_ms / 1000} s. Analysts cannot send their own Cypher: see docs/graph.md.</p>
      </nav>
      <section class="query-run">
        {query ? <QueryRun key={query.id} query={query} /> : selected ? <p class="empty">No saved query {selected}.</p> : <p class="empty">Pick a query on the left.</p>}
      </section>
    </div>
  );
}

function QueryRun({ query }: { query: Query }) {
  const [params, setParams] = useState<Record<string, string>>({});
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState('');
  const [view, setView] = useState<'table' | 'picture'>('table');
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const run = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      setResult(await api<Result>(`/queries/${query.id}/run`, { body: params }));
      setView('table');
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const graph = result ? collectGraph(result.rows) : { nodes: [], edges: [] };
  useEffect(() => {
    cy.current?.destroy();
    cy.current = null;
    if (view === 'picture' && box.current && graph.nodes.length > 0) void draw(box.current, elements(graph.nodes, graph.edges), () => undefined).then((c) => { cy.current = c; });
  }, [view, result]);
  return (
    <div>
      <h2>{query.id}</h2>
      <p>{query.description}</p>
      <p class="muted">Columns: {query.returns}</p>
      <form class="inline" onSubmit={run}>
        {query.parameters.map((p) => <label>{p.name}{p.hint && <span class="muted"> ({p.hint})</span>}<input name={p.name} required value={params[p.name] ?? ''} onInput={(e) => setParams({ ...params, [p.name]: e.currentTarget.value })} /></label>)}
        <button type="submit">Run</button>
        {result && <a class="button" download href={`/console/api/queries/${query.id}/csv${qs(params)}`}>Download CSV</a>}
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      {result && (
        <div>
          <p class="muted">{result.rows.length} rows in {result.ms} ms{result.truncated && ' (cut at the row cap)'}.
            {graph.nodes.length > 0 && <span> <button type="button" class="link" onClick={() => setView(view === 'table' ? 'picture' : 'table')}>{view === 'table' ? 'Show as picture' : 'Show as table'}</button></span>}</p>
          {view === 'picture' ? <div class="graph small" ref={box} /> : result.rows.length === 0 ? <p class="empty">No rows. Check the parameters (values are exact; emails in their normalised form).</p> : (
            <table class="rows result"><thead><tr>{result.columns.map((c) => <th>{c}</th>)}</tr></thead>
              <tbody>{result.rows.map((r) => <tr>{result.columns.map((c) => <td>{cellText(r[c])}</td>)}</tr>)}</tbody></table>
          )}
        </div>
      )}
    </div>
  );
}
