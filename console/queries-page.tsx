// Saved graph queries (cypher/analyst/): listed with their description and parameters, run
// read-only by the server with the tenant and mode injected; results as a table, as a picture
// when they hold nodes or paths, and as a CSV download.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { ResultView, type Result } from './query-results';
import { useTitle } from './format';
import { queryHref } from './links';
import type { QueryList, QueryResult } from './types';

// A reviewed query, or the tenant's own (saved from the Cypher page) with its text and author.
type Query = QueryList['queries'][number];

export function QueriesPage({ selected, query: url }: { selected?: string; query: URLSearchParams }) {
  const [list, setList] = useState<QueryList | null>(null);
  useEffect(() => void api<QueryList>('/queries').then(setList), []);
  useTitle(selected ? `Query ${selected}` : 'Graph queries');
  if (!list) return <p class="loading">Loading saved queries…</p>;
  const query = list.queries.find((q) => q.id === selected);
  return (
    <div class="queries-page">
      <nav class="query-list">
        <h1>Graph queries</h1>
        {list.queries.length === 0 && (
          <p class="empty">
            No saved queries. An operator adds <code>.cypher</code> files to <code>cypher/analyst/</code> and restarts Doorman.
          </p>
        )}
        <ul>
          {list.queries.map((q) => (
            <li class={q.id === selected ? 'current' : ''}>
              <a href={`/console/queries/${q.id}`}>
                <strong>{q.id}</strong>
              </a>
              {q.own && <span class="tag"> this tenant's</span>}
              <br />
              <span class="muted">{q.description}</span>
            </li>
          ))}
        </ul>
        <p class="hint">
          Run read-only in your tenant and mode, at most {list.row_cap} rows and {list.timeout_ms / 1000} s. The reviewed queries ship with
          Doorman; your tenant's own are saved from the <a href="/console/cypher">Cypher</a> page and run through its guard.
        </p>
      </nav>
      <section class="query-run">
        {query ? (
          <QueryRun key={query.id} query={query} given={url} />
        ) : selected ? (
          <p class="empty">No saved query {selected}.</p>
        ) : (
          <p class="empty">Pick a query on the left.</p>
        )}
      </section>
    </div>
  );
}

// Parameters may come in the URL (links from the account page: ?account=…); a query whose
// parameters are all given runs at once. A run puts its parameters in the URL (both accounts of
// what-links-accounts), so a reload or a shared link shows the same result.
function QueryRun({ query, given }: { query: Query; given: URLSearchParams }) {
  const initial = Object.fromEntries(query.parameters.flatMap((p) => (given.get(p.name) ? [[p.name, given.get(p.name)!]] : [])));
  const [params, setParams] = useState<Record<string, string>>(initial);
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (query.parameters.length > 0 && query.parameters.every((p) => initial[p.name])) void run();
  }, []);
  const run = async (e?: Event) => {
    e?.preventDefault();
    setError('');
    // The page stays as it is: only its address changes (no navigation, no new history entry).
    history.replaceState(null, '', queryHref(query.id, params));
    try {
      setResult(await api<QueryResult>(`/queries/${query.id}/run`, { body: params }));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div>
      <h2>{query.id}</h2>
      <p>{query.description}</p>
      {query.own ? <pre class="cypher-text">{query.query}</pre> : <p class="muted">Columns: {query.returns}</p>}
      {query.own && <p class="muted">Saved by {query.created_by} for this tenant.</p>}
      <form class="inline" onSubmit={run}>
        {query.parameters.map((p) => (
          <label>
            {p.name}
            {p.hint && <span class="muted"> ({p.hint})</span>}
            <input
              name={p.name}
              required
              value={params[p.name] ?? ''}
              onInput={(e) => setParams({ ...params, [p.name]: e.currentTarget.value })}
            />
          </label>
        ))}
        <button type="submit">Run</button>
        {result && (
          <a class="button" download href={`/console/api/queries/${query.id}/csv${qs(params)}`}>
            Download CSV
          </a>
        )}
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <ResultView
          result={result}
          picture={query.id === 'what-links-accounts'}
          empty="No rows. Check the parameters: values are exact (an email is looked up as the graph normalises it)."
        />
      )}
    </div>
  );
}
