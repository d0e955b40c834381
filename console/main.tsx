// The analyst console in the browser: signs in, then routes each /console page to its view.
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, setCsrfToken } from './api';
import { AccountPage } from './account-page';
import { AuditPage } from './audit-page';
import { ClusterChangesPage } from './cluster-changes-page';
import { ClusterPage } from './cluster-page';
import { CypherPage } from './cypher-page';
import { EventPage, EventsPage } from './events-page';
import { Layout } from './layout';
import { OverviewPage } from './overview-page';
import { QueriesPage } from './queries-page';
import { QueuePage } from './queue-page';
import { navigate, onLinkClick, useLocation } from './router';
import { setTitle, useTitle } from './format';
import { SignInPage, WelcomePage } from './sign-in-page';
import type { Me } from './types';

function Page({ path, query, me }: { path: string; query: URLSearchParams; me: Me }) {
  const parts = path.split('/').slice(2).map(decodeURIComponent);
  const [section, id, sub] = parts;
  switch (section) {
    case undefined:
    case 'queue':
      return <QueuePage query={query} me={me} />;
    case 'events':
      if (id && sub === 'cluster') return <ClusterPage from={{ event: id }} />;
      return id ? <EventPage id={id} me={me} /> : <EventsPage query={query} />;
    case 'accounts':
      if (id && sub === 'cluster') return <ClusterPage from={{ account: id }} />;
      return id ? <AccountPage id={id} /> : <NotFound />;
    case 'clusters':
      return id ? <ClusterPage from={{ cluster: id }} /> : <ClusterChangesPage query={query} />;
    case 'queries':
      return <QueriesPage selected={id} query={query} />;
    case 'cypher':
      return <CypherPage me={me} />;
    case 'overview':
      return <OverviewPage me={me} />;
    case 'audit':
      return me.role === 'admin' ? <AuditPage /> : <p class="empty">The audit log is for admins of this tenant.</p>;
    default:
      return <NotFound />;
  }
}

const NotFound = () => (
  <p class="empty" ref={() => setTitle('Not found')}>
    There is no such page. Start from the <a href="/console/queue">review queue</a>.
  </p>
);

// Titles of the pages that do not name themselves (the others set theirs: an event's, an
// account's, a cluster's, a query's).
const TITLES: Record<string, string> = { cypher: 'Cypher', audit: 'Audit log', 'sign-in': 'Sign in', welcome: 'Welcome' };

function App() {
  const { path, query } = useLocation();
  const section = path.split('/')[2] ?? 'queue';
  useTitle(TITLES[section] ?? null);
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const open = path === '/console/sign-in' || path === '/console/welcome';
  const load = useCallback(
    () =>
      api<Me>('/me').then(
        (m) => {
          setCsrfToken(m.csrf_token);
          setMe(m);
        },
        () => setMe(null),
      ),
    [],
  );
  useEffect(() => {
    if (!open) void load();
  }, [open, load]);
  useEffect(() => {
    if (!open && me === null) navigate('/console/sign-in', true);
  }, [open, me]);
  if (path === '/console/sign-in')
    return (
      <SignInPage
        onSignedIn={() => {
          setMe(undefined);
          navigate('/console/queue');
        }}
      />
    );
  if (path === '/console/welcome')
    return (
      <WelcomePage
        onSignedIn={() => {
          setMe(undefined);
          navigate('/console/queue', true);
        }}
      />
    );
  if (!me) return <p class="loading">Loading…</p>;
  return (
    <Layout me={me} path={path} onChanged={load}>
      <Page key={`${me.mode}:${path}`} path={path} query={query} me={me} />
    </Layout>
  );
}

document.addEventListener('click', onLinkClick);
render(<App />, document.getElementById('app')!);
