// A hub as the analyst needs it: the warning when it ties pending reviews to confirmed abusers
// ("this device links 7 pending reviews to 2 confirmed abusers"), and the accounts behind it on
// demand, confirmed ones flagged, each with its pending reviews. Shown beside a hub on the account
// page and in the cluster picture's details.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { plural, when } from './format';
import type { HubAccounts } from './types';

// The sentence, or none when no confirmed abuser shares the hub.
export function hubSentence(h: Pick<HubAccounts, 'kind' | 'confirmed_accounts' | 'pending_reviews'>): string | null {
  if (h.confirmed_accounts === 0) return null;
  const abusers = plural(h.confirmed_accounts, 'confirmed abuser');
  return h.pending_reviews > 0
    ? `This ${h.kind} links ${plural(h.pending_reviews, 'pending review')} to ${abusers}.`
    : `This ${h.kind} is shared with ${abusers}.`;
}

export function HubDetails({ kind, value }: { kind: string; value: string }) {
  const [hub, setHub] = useState<HubAccounts | null>(null);
  const [error, setError] = useState('');
  const [open, setOpen] = useState(false);
  // Later pages of the accounts behind it, asked for with "Show more".
  const more = async (skip: number) => {
    try {
      const next = await api<HubAccounts>(`/hubs${qs({ kind, value, skip })}`);
      setHub((h) => h && { ...h, accounts: [...h.accounts, ...next.accounts], truncated: next.truncated, next_skip: next.next_skip });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => {
    setHub(null);
    setOpen(false);
    api<HubAccounts>(`/hubs${qs({ kind, value })}`).then(setHub, (e: Error) => setError(e.message));
  }, [kind, value]);
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!hub) return <p class="loading">Reading who shares it…</p>;
  const sentence = hubSentence(hub);
  return (
    <div class="hub-accounts" data-kind={kind} data-value={value}>
      {sentence && (
        <p class="warning hub-confirmed" role="note">
          {sentence}
        </p>
      )}
      <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Hide' : 'Show'} the {plural(hub.accounts_total, 'account')} behind it
      </button>
      {open && (
        <table class="rows hub-account-list">
          <thead>
            <tr>
              <th>Account</th>
              <th class="time">Linked (UTC)</th>
              <th>Confirmed abuse</th>
              <th class="num">Pending reviews</th>
            </tr>
          </thead>
          <tbody>
            {hub.accounts.map((a) => (
              <tr class={a.expired ? 'muted' : ''} data-account={a.external_user_id}>
                <td>
                  <a href={`/console/accounts/${encodeURIComponent(a.external_user_id)}`}>{a.external_user_id}</a>
                </td>
                <td class="time">{a.linked_at ? when(a.linked_at).replace(' UTC', '') : '–'}</td>
                <td>{a.confirmed ? <span class="flag bad">confirmed</span> : '–'}</td>
                <td class="num">
                  {a.pending_reviews > 0 ? (
                    <a href={`/console/queue?text=${encodeURIComponent(a.external_user_id)}`}>{a.pending_reviews}</a>
                  ) : (
                    0
                  )}
                </td>
              </tr>
            ))}
          </tbody>
          {hub.truncated && (
            <tfoot>
              <tr>
                <td colSpan={4} class="muted">
                  The first {plural(hub.accounts.length, 'account')} of {hub.accounts_total.toLocaleString('en')}, in the order they linked.{' '}
                  {hub.next_skip !== undefined && (
                    <button type="button" class="link more" onClick={() => void more(hub.next_skip!)}>
                      Show {Math.min(500, hub.accounts_total - hub.accounts.length).toLocaleString('en')} more
                    </button>
                  )}
                </td>
              </tr>
            </tfoot>
          )}
        </table>
      )}
    </div>
  );
}
