// The "Cypher" page: analysts' own read-only Cypher over their tenant and mode, through the server's
// guard (docs/graph.md). An editor with highlighting and completion, parameters, Ctrl+Enter to run,
// results as a table or a picture, CSV, the analyst's history, "save as a query" for the tenant,
// and, for admins, who may run it.
import type { EditorView } from '@codemirror/view';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { ResultView, toCsv, type Result } from './query-results';
import type {
  CypherHistory,
  CypherRunBody,
  CypherRunResult,
  CypherSettings as Settings,
  CypherSettingsBody,
  FreeFormRoles,
  Me,
  QuerySaved,
  SaveQueryBody,
} from './types';

type HistoryEntry = CypherHistory['history'][number];

interface Param {
  value: string;
  json: boolean;
}

const EXAMPLE =
  'MATCH (a:Account {externalId: $account})-[:IN]->(c:Cluster)\nMATCH (b:Account)-[:IN]->(c)\nRETURN b.externalId AS account, c.id AS cluster\nLIMIT 100';

// The $names a statement uses (the server checks them again, exactly).
const namesIn = (text: string): string[] =>
  [
    ...new Set(
      [...text.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\/\/.*|\/\*[\s\S]*?\*\//g, '').matchAll(/\$([A-Za-z_]\w*)/g)].map((m) => m[1]!),
    ),
  ].filter((n) => n !== 'tenantId' && n !== 'mode');

export function CypherPage({ me }: { me: Me }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [history, setHistory] = useState<HistoryEntry[]>([]);
  const load = () => {
    void api<Settings>('/cypher').then(setSettings);
    void api<CypherHistory>('/cypher/history').then((h) => setHistory(h.history));
  };
  useEffect(load, []);
  if (!settings) return <p class="loading">Loading…</p>;
  return (
    <div class="cypher-page">
      <h1>Cypher</h1>
      {settings.allowed ? (
        <CypherWorkbench settings={settings} history={history} onRan={load} />
      ) : (
        <p class="empty">
          Your tenant's admins allow free-form Cypher to admins only. The <a href="/console/queries">graph queries</a>, the reviewed ones
          and your tenant's own, are open to you.
        </p>
      )}
      {me.role === 'admin' && <RolesSetting value={settings.free_form_roles} onChanged={load} />}
    </div>
  );
}

function RolesSetting({ value, onChanged }: { value: Settings['free_form_roles']; onChanged: () => void }) {
  const change = async (roles: Settings['free_form_roles']) => {
    await api<FreeFormRoles>('/cypher/settings', { method: 'PUT', body: { free_form_roles: roles } satisfies CypherSettingsBody });
    onChanged();
  };
  return (
    <p class="setting">
      <label>
        Who may run free-form Cypher in this tenant{' '}
        <select value={value} onChange={(e) => void change(e.currentTarget.value as Settings['free_form_roles'])}>
          <option value="admin">admins</option>
          <option value="analyst">every analyst</option>
        </select>
      </label>
    </p>
  );
}

function CypherWorkbench({ settings, history, onRan }: { settings: Settings; history: HistoryEntry[]; onRan: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const textRef = useRef(EXAMPLE);
  const [text, setText] = useState(EXAMPLE);
  const [params, setParams] = useState<Record<string, Param>>({});
  const { result, error, running, run } = useCypherRun(textRef, params, onRan);
  const runRef = useRef(run);
  runRef.current = run;
  useCypherEditor(box, view, textRef, settings.schema, runRef, setText);

  const load = (entry: HistoryEntry) => {
    void import('./cypher-editor').then(({ setText: put }) => view.current && put(view.current, entry.query));
    setParams(
      Object.fromEntries(
        Object.entries(entry.params).map(([k, v]) => [
          k,
          typeof v === 'string' ? { value: v, json: false } : { value: JSON.stringify(v), json: true },
        ]),
      ),
    );
  };
  const names = namesIn(text);
  return (
    // Ctrl+Enter runs from anywhere on the page (a parameter's field too); the editor's own keymap
    // handles it first there, and marks the event handled.
    <div
      class="cypher-workbench"
      onKeyDown={(e) => {
        if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !e.defaultPrevented) {
          e.preventDefault();
          void run();
        }
      }}
    >
      <div class="editor-column">
        <div class="cypher-editor" ref={box} />
        {names.length > 0 && <ParamFields names={names} params={params} setParams={setParams} />}
        <p class="actions">
          <button type="button" onClick={() => void run()} disabled={running}>
            {running ? 'Running…' : 'Run'}
          </button>
          <span class="muted">
            {' '}
            Ctrl+Enter. Read-only in this tenant and mode; at most {settings.row_cap} rows and {settings.timeout_ms / 1000} s.
          </span>
          {result && (
            <button type="button" class="link" onClick={() => downloadCsv(result)}>
              Download CSV
            </button>
          )}
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {result && <ResultView result={result} empty="No rows." />}
        <SaveAs text={text} />
      </div>
      <CypherHistoryList history={history} onPick={load} />
    </div>
  );
}

// Running the statement as it stands in the editor (`textRef`), with its parameters' values (a
// value marked JSON is parsed first); the history is reloaded after each run, whatever its outcome.
function useCypherRun(textRef: { current: string }, params: Record<string, Param>, onRan: () => void) {
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState('');
  const [running, setRunning] = useState(false);
  const paramsRef = useRef(params);
  paramsRef.current = params;
  const run = async () => {
    setError('');
    setRunning(true);
    try {
      const values: Record<string, unknown> = {};
      for (const name of namesIn(textRef.current)) {
        const p = paramsRef.current[name] ?? { value: '', json: false };
        values[name] = p.json ? JSON.parse(p.value) : p.value;
      }
      setResult(await api<CypherRunResult>('/cypher/run', { body: { query: textRef.current, params: values } satisfies CypherRunBody }));
    } catch (err) {
      setResult(null);
      setError(err instanceof SyntaxError ? `A parameter marked JSON is not JSON: ${err.message}` : (err as Error).message);
    } finally {
      setRunning(false);
      onRan();
    }
  };
  return { result, error, running, run };
}

// The editor in `box`, loaded once with the page (its own chunk): what is typed goes to `textRef`
// and `setText`, and its Ctrl+Enter runs the latest `run`.
function useCypherEditor(
  box: { current: HTMLDivElement | null },
  view: { current: EditorView | null },
  textRef: { current: string },
  schema: Settings['schema'],
  runRef: { current: () => Promise<void> },
  setText: (text: string) => void,
) {
  useEffect(() => {
    let cancelled = false;
    void import('./cypher-editor').then(({ cypherEditor }) => {
      if (cancelled || !box.current) return;
      view.current = cypherEditor(
        box.current,
        textRef.current,
        schema,
        () => void runRef.current(),
        (t) => {
          textRef.current = t;
          setText(t);
        },
      );
      view.current.focus();
    });
    return () => {
      cancelled = true;
      view.current?.destroy();
    };
  }, []);
}

// The statement's $parameters, each a text value or JSON.
function ParamFields({
  names,
  params,
  setParams,
}: {
  names: string[];
  params: Record<string, Param>;
  setParams: (params: Record<string, Param>) => void;
}) {
  return (
    <fieldset class="cypher-params">
      <legend>Parameters</legend>
      {names.map((n) => {
        const p = params[n] ?? { value: '', json: false };
        return (
          <label>
            ${n}
            <input
              name={`param-${n}`}
              value={p.value}
              onInput={(e) => setParams({ ...params, [n]: { ...p, value: e.currentTarget.value } })}
            />
            <span class="muted">
              <input
                type="checkbox"
                checked={p.json}
                onChange={(e) => setParams({ ...params, [n]: { ...p, json: e.currentTarget.checked } })}
              />{' '}
              JSON
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}

const downloadCsv = (result: Result) => {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([toCsv(result)], { type: 'text/csv' }));
  a.download = 'cypher.csv';
  a.click();
  URL.revokeObjectURL(a.href);
};

// The analyst's own runs, newest first; a click puts one back in the editor with its parameters.
function CypherHistoryList({ history, onPick }: { history: HistoryEntry[]; onPick: (entry: HistoryEntry) => void }) {
  return (
    <aside class="cypher-history">
      <h2>Your history</h2>
      {history.length === 0 ? (
        <p class="empty">Nothing run yet.</p>
      ) : (
        <ol>
          {history.map((h) => (
            <li>
              <button type="button" class="link history-entry" title={h.query} onClick={() => onPick(h)}>
                {h.query.length > 80 ? `${h.query.slice(0, 78)}…` : h.query}
              </button>
              <br />
              <span class="muted">
                {h.at.replace('T', ' ').slice(0, 19)} UTC ·{' '}
                {h.refused ? `refused: ${h.refused}` : h.error ? 'failed' : `${h.rows} rows, ${h.ms} ms`}
              </span>
            </li>
          ))}
        </ol>
      )}
    </aside>
  );
}

function SaveAs({ text }: { text: string }) {
  const [id, setId] = useState('');
  const [description, setDescription] = useState('');
  const [saved, setSaved] = useState('');
  const [error, setError] = useState('');
  const save = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const r = await api<QuerySaved>('/cypher/saved', { body: { id, description, query: text } satisfies SaveQueryBody });
      setSaved(r.id);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <form class="inline save-as" onSubmit={save}>
      <label>
        Save as a query{' '}
        <input
          name="query-id"
          required
          pattern="[a-z0-9][a-z0-9\-]{0,62}"
          placeholder="name-like-this"
          value={id}
          onInput={(e) => setId(e.currentTarget.value)}
        />
      </label>
      <label>
        Description{' '}
        <input name="query-description" maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <button type="submit">Save for this tenant</button>
      {saved && (
        <span>
          {' '}
          Saved: <a href={`/console/queries/${saved}`}>{saved}</a>
        </span>
      )}
      {error && (
        <span class="error" role="alert">
          {' '}
          {error}
        </span>
      )}
    </form>
  );
}
