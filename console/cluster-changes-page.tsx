// The clusters new accounts made or grew in a window (the overview's "clusters made" and
// "clusters grown" lead here): every one, a page at a time, largest first, each with its accounts,
// how many are new, and whether confirmed abuse stands on it, each a link to its picture.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { plural, useTitle, when } from './format';
import type { ClusterChange, ClusterChanges } from './types';

// The list's filters, as the URL carries them (from and to are the window's ISO instants; limit,
// if given, the page's size).
type Filter = { from: string; to: string; change: string; confirmed: string; limit: string };

export function ClusterChangesPage({ query }: { query: URLSearchParams }) {
  const f = Object.fromEntries(['from', 'to', 'change', 'confirmed', 'limit'].map((k) => [k, query.get(k) ?? ''])) as Filter;
  const [data, setData] = useState<ClusterChanges | null>(null);
  const [clusters, setClusters] = useState<ClusterChange[]>([]);
  const [error, setError] = useState('');
  useTitle('Clusters made or grown');
  const load = async (cursor?: string) => {
    setError('');
    try {
      const page = await api<ClusterChanges>(`/cluster-changes${qs({ ...f, cursor })}`);
      setData(page);
      setClusters((old) => (cursor ? [...old, ...page.clusters] : page.clusters));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => void load(), [query.toString()]);
  if (!f.from || !f.to)
    return <p class="empty">Open this list from the overview: its counts of clusters made and grown lead here, with their window.</p>;
  return (
    <div class="cluster-changes">
      <h1>
        Clusters made or grown{' '}
        <span class="muted">
          from {when(f.from)} to {when(f.to)}
        </span>
      </h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {data && <ChangeFilters data={data} f={f} />}
      {data?.capped && (
        <p class="warning">More accounts were first seen in this window than the graph was asked about: the list may miss clusters.</p>
      )}
      {!data && !error && <p class="loading">Loading the clusters…</p>}
      {data &&
        (clusters.length === 0 ? (
          <p class="empty">No cluster of two or more accounts was made or grown by the accounts first seen in this window.</p>
        ) : (
          <ChangeTable clusters={clusters} />
        ))}
      {data?.next_cursor && (
        <button type="button" onClick={() => void load(data.next_cursor)}>
          More clusters ({clusters.length} of {data.total} shown)
        </button>
      )}
    </div>
  );
}

// All, made, grown, confirmed: each with its count (the overview's for the same window).
function ChangeFilters({ data, f }: { data: ClusterChanges; f: Filter }) {
  const c = data.counts;
  const tabs = [
    { label: 'made or grown', n: c.made + c.grown, change: '', confirmed: '' },
    { label: 'made', n: c.made, change: 'made', confirmed: '' },
    { label: 'grown', n: c.grown, change: 'grown', confirmed: '' },
    { label: 'confirmed abuse', n: c.confirmed, change: '', confirmed: '1' },
  ];
  return (
    <p class="change-filters">
      {tabs.map((t, i) => {
        const on = t.change === f.change && t.confirmed === f.confirmed;
        const label = `${t.n} ${t.label}`;
        return [
          i > 0 && ' · ',
          on ? (
            <strong data-filter={t.change || (t.confirmed ? 'confirmed' : 'all')}>{label}</strong>
          ) : (
            <a
              data-filter={t.change || (t.confirmed ? 'confirmed' : 'all')}
              href={`/console/clusters${qs({ ...f, change: t.change, confirmed: t.confirmed })}`}
            >
              {label}
            </a>
          ),
        ];
      })}
    </p>
  );
}

function ChangeTable({ clusters }: { clusters: ClusterChange[] }) {
  return (
    <table class="rows changes">
      <thead>
        <tr>
          <th>Cluster</th>
          <th class="num">Accounts</th>
          <th class="num">New in the window</th>
          <th>Change</th>
          <th>Marks</th>
        </tr>
      </thead>
      <tbody>
        {clusters.map((c) => (
          <tr data-cluster-id={c.id}>
            <td>
              <a href={`/console/clusters/${encodeURIComponent(c.id)}`}>
                <code>{c.id}</code>
              </a>
            </td>
            <td class="num">{c.accounts}</td>
            <td class="num">{c.new_accounts}</td>
            <td>{c.change === 'made' ? 'made' : `grown by ${plural(c.new_accounts, 'account')}`}</td>
            <td>{c.confirmed_abuse ? <span class="flag bad">confirmed abuse</span> : <span class="muted">–</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
