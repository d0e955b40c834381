// The frame of every signed-in page: navigation, the tenant, the live/test switch, who is signed in
// (their email and role, at every width) and sign-out.
import type { ComponentChildren } from 'preact';
import { api } from './api';
import { navigate } from './router';
import type { Me, ModeBody, ModeSwitched, Ok } from './types';

const NAV = [
  ['/console/queue', 'Review queue'],
  ['/console/events', 'Events'],
  ['/console/queries', 'Graph queries'],
  ['/console/cypher', 'Cypher'],
  ['/console/overview', 'Overview'],
] as const;

export function Layout({ me, path, onChanged, children }: { me: Me; path: string; onChanged: () => unknown; children: ComponentChildren }) {
  const switchMode = async (mode: 'live' | 'test') => {
    await api<ModeSwitched>('/mode', { body: { mode } satisfies ModeBody });
    await onChanged();
  };
  const signOut = async () => {
    await api<Ok>('/sign-out', { body: {} });
    navigate('/console/sign-in');
  };
  const current = (href: string) => path === href || path.startsWith(`${href}/`) || (href === '/console/queue' && path === '/console');
  return (
    <div class={`frame mode-${me.mode}`}>
      <header class="top">
        <span class="brand">Doorman</span>
        <nav>
          {[...NAV, ...(me.role === 'admin' ? [['/console/audit', 'Audit log'] as const] : [])].map(([href, label]) => (
            <a href={href} class={current(href) ? 'current' : ''} aria-current={current(href) ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="tenant" title={me.tenant_id}>
          {me.tenant_name}
        </span>
        <div class="mode-switch" role="group" aria-label="Mode">
          {(['test', 'live'] as const).map((m) => (
            <button
              type="button"
              class={me.mode === m ? 'on' : ''}
              aria-pressed={me.mode === m}
              data-mode={m}
              onClick={() => void switchMode(m)}
            >
              {m}
            </button>
          ))}
        </div>
        <div class="account" title={`Signed in as ${me.email} (${me.role})`}>
          <span class="who">
            <span class="email">{me.email}</span> <span class="role">{me.role}</span>
          </span>
          <button type="button" class="link sign-out" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      {me.mode === 'live' ? null : (
        <div class="test-banner">Test mode: you are looking at test data (events screened with sk_test_ keys).</div>
      )}
      <main>{children}</main>
    </div>
  );
}
