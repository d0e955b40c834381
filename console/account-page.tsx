// One account (external user id): its events, the identifiers it links to (each a search of the
// events that used it), its cluster and the marks on it, and the feedback about it. Reached from
// every place an account appears.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { plural, useTitle, when } from './format';
import { EventTable } from './event-view';
import { RecordedFeedback } from './event-feedback';
import { HubDetails } from './hub-accounts';
import { RingView } from './ring-members';
import type { AccountDetail } from './types';

// The events search that finds the events which used an identifier.
const searchOf = (kind: string, value: string): string =>
  kind === 'email'
    ? `/console/events?email=${encodeURIComponent(value)}`
    : kind === 'card'
      ? `/console/events?card=${encodeURIComponent(value)}`
      : kind === 'ip'
        ? `/console/events?ip=${encodeURIComponent(value)}`
        : `/console/events?identity=${encodeURIComponent(`${kind}=${value}`)}`;

export function AccountPage({ id }: { id: string }) {
  const [account, setAccount] = useState<AccountDetail | null>(null);
  const [error, setError] = useState('');
  useTitle(`Account ${id}`);
  useEffect(() => {
    api<AccountDetail>(`/accounts/${encodeURIComponent(id)}`).then(setAccount, (e: Error) => setError(e.message));
  }, [id]);
  if (error)
    return (
      <div class="empty">
        <h1>
          Account <code>{id}</code>
        </h1>
        <p class="error" role="alert">
          {error}
        </p>
      </div>
    );
  if (!account) return <p class="loading">Loading account {id}…</p>;
  return (
    <div class="account-page" data-account={account.external_user_id}>
      <AccountFacts account={account} />
      <div class="account-grid">
        <AccountCluster account={account} />
        <AccountIdentifiers identifiers={account.identifiers} />
      </div>
      {account.cluster && account.cluster !== 'unavailable' && account.cluster.accounts > 1 && (
        <RingView clusterId={account.cluster.id} self={account.external_user_id} />
      )}
      <RecordedFeedback event={{ external_user_id: account.external_user_id }} />
      <AccountEvents account={account} />
    </div>
  );
}

// The account in a sentence: its events and their verdicts, when it was first and last seen, its
// emails.
function AccountFacts({ account: a }: { account: AccountDetail }) {
  return (
    <header>
      <h1>
        Account <code>{a.external_user_id}</code>
      </h1>
      <p>
        {plural(a.events_total, 'event')} ({a.verdicts.allow} allowed, {plural(a.verdicts.review, 'review')}, {a.verdicts.block} blocked),
        first seen {when(a.first_seen_at)}, last seen {when(a.last_seen_at)}.
        {a.emails.length > 0 && <span> Emails: {a.emails.join(', ')}.</span>}
      </p>
    </header>
  );
}

// The account's identity cluster: its size, the marks on it, and the ways into its picture.
function AccountCluster({ account: a }: { account: AccountDetail }) {
  const c = a.cluster;
  return (
    <section class="account-cluster">
      <h2>Identity cluster</h2>
      {c === 'unavailable' ? (
        <p class="error">The identity graph did not answer; the rest of this page is complete.</p>
      ) : !c ? (
        <p class="empty">Not in a cluster yet (no link applied).</p>
      ) : (
        <div>
          <p>
            <strong>{plural(c.accounts, 'account')}</strong>, {plural(c.size, 'member')}
            {c.confirmedAbuse && <span class="flag bad">confirmed abuse</span>}
            {c.chargebacks > 0 && <span class="flag bad">{plural(c.chargebacks, 'chargeback')}</span>}
            {c.falsePositive && <span class="flag good">false positive reported</span>}
          </p>
          {c.suppressed.length > 0 && <p class="muted">Suppressed codes: {c.suppressed.join(', ')}</p>}
          <p>
            <a class="button" href={`/console/accounts/${encodeURIComponent(a.external_user_id)}/cluster`}>
              Open the cluster picture
            </a>{' '}
            <a href={`/console/queries/what-links-accounts?account=${encodeURIComponent(a.external_user_id)}`}>
              What links it to another account?
            </a>
          </p>
        </div>
      )}
    </section>
  );
}

// The identifiers the account links to, with how many accounts share each; each value a search
// of the events that used it.
function AccountIdentifiers({ identifiers }: { identifiers: AccountDetail['identifiers'] }) {
  return (
    <section class="account-identifiers">
      <h2>Identifiers</h2>
      {identifiers === 'unavailable' ? (
        <p class="error">The identity graph did not answer.</p>
      ) : identifiers.length === 0 ? (
        <p class="empty">It links to no identifier yet.</p>
      ) : (
        <table class="rows">
          <thead>
            <tr>
              <th>Kind</th>
              <th>Value</th>
              <th class="num">Accounts</th>
              <th class="time">First seen (UTC)</th>
              <th class="time">Last seen (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {identifiers.map((i) => [
              <tr class={i.expired ? 'muted' : ''}>
                <td>
                  {i.kind}
                  {i.hub && <span class="flag bad">hub</span>}
                  {i.expired && <span class="muted"> (expired)</span>}
                </td>
                <td>
                  <a href={searchOf(i.kind, i.value)}>{i.value}</a>
                </td>
                <td class="num">{i.accounts}</td>
                <td class="time">{i.firstSeenAt ? when(i.firstSeenAt).replace(' UTC', '') : '–'}</td>
                <td class="time">{i.lastSeenAt ? when(i.lastSeenAt).replace(' UTC', '') : '–'}</td>
              </tr>,
              // A hub no longer links the accounts it is shared by: who they are, and whether
              // confirmed abusers among them tie this account's reviews to them.
              i.hub && (
                <tr class="hub-row">
                  <td colSpan={5}>
                    <HubDetails kind={i.kind} value={i.value} />
                  </td>
                </tr>
              ),
            ])}
          </tbody>
        </table>
      )}
    </section>
  );
}

// The account's events, newest first; where there are more, the way to all of them in the events
// search.
function AccountEvents({ account: a }: { account: AccountDetail }) {
  return (
    <section>
      <h2>
        Events <span class="muted">(newest first)</span>
      </h2>
      <EventTable events={a.events} empty="No events name this account." />
      {a.next_cursor && (
        <p>
          <a href={`/console/events?external_user_id=${encodeURIComponent(a.external_user_id)}`}>
            All {plural(a.events_total, 'event')} in the events search
          </a>
        </p>
      )}
    </section>
  );
}
