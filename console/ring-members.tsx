// The ring view: who is in a cluster, as a table (account, first seen, verdicts, reviews, marks),
// a page at a time, and actions on a selection of its accounts: deny their pending reviews, report
// confirmed abuse or a false positive about them with a note, open one. Each action says what it
// will do before it acts, and acts only once confirmed; the server audits each review resolved and
// each report, one by one. Shown on the account page and the cluster page.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { plural, when } from './format';
import { accountHref } from './links';
import { navigate } from './router';
import type { FeedbackManyAnswer, FeedbackManyBody, ResolveManyAnswer, ResolveManyBody, RingMember, RingMembers } from './types';

type Action = 'deny' | 'confirmed_abuse' | 'false_positive';

// The servers' bound on one bulk request.
const BATCH = 100;

const chunks = <T,>(items: T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / BATCH) }, (_, i) => items.slice(i * BATCH, (i + 1) * BATCH));

// What an action on the selection will do, said before it acts.
export function ringConsequence(action: Action, accounts: number, reviews: number): string {
  const who = plural(accounts, 'account');
  if (action === 'deny')
    return `Deny ${plural(reviews, 'pending review')} of ${who}: each gets the final verdict block (a review.resolved webhook to your backend) and marks its account as confirmed abuse, so later verdicts of the accounts linked to them carry cluster_confirmed_abuse. Undo marks stays possible on each review.`;
  if (action === 'confirmed_abuse')
    return `Report confirmed abuse about ${who}, with your note: each report marks the account, so later verdicts of the accounts linked to it carry cluster_confirmed_abuse. An admin can retract each report.`;
  return `Report a false positive about ${who}, with your note: each report suppresses the codes the account's events fired for its cluster's later verdicts. An admin can retract each report.`;
}

const ACTION_WORDS: Record<Action, string> = {
  deny: 'Deny the pending reviews',
  confirmed_abuse: 'Report confirmed abuse',
  false_positive: 'Report a false positive',
};

export function RingView({ clusterId, self }: { clusterId: string; self?: string }) {
  const [members, setMembers] = useState<RingMember[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [error, setError] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [asking, setAsking] = useState<Action | null>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');

  const load = async (cursor?: string) => {
    try {
      const page = await api<RingMembers>(`/clusters/${encodeURIComponent(clusterId)}/members${qs({ cursor })}`);
      setMembers((old) => (cursor ? [...old, ...page.members] : page.members));
      setTotal(page.accounts_total);
      setNext(page.next_cursor);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  // After an action: the pages read so far, read again.
  const reload = async () => {
    const pages = Math.max(1, Math.ceil(members.length / BATCH));
    let cursor: string | undefined;
    const all: RingMember[] = [];
    for (let i = 0; i < pages; i++) {
      const page = await api<RingMembers>(`/clusters/${encodeURIComponent(clusterId)}/members${qs({ cursor })}`);
      all.push(...page.members);
      setTotal(page.accounts_total);
      cursor = page.next_cursor;
      setNext(cursor);
      if (!cursor) break;
    }
    setMembers(all);
  };
  useEffect(() => {
    setMembers([]);
    setChosen(new Set());
    void load();
  }, [clusterId]);

  const selected = members.filter((m) => chosen.has(m.external_user_id));
  const pendingIds = selected.flatMap((m) => m.pending_review_ids);
  const toggle = (id: string, on: boolean) =>
    setChosen((old) => {
      const s = new Set(old);
      if (on) s.add(id);
      else s.delete(id);
      return s;
    });
  const choose = (which: RingMember[]) => {
    setChosen(new Set(which.map((m) => m.external_user_id)));
    setAsking(null);
  };
  const ask = (action: Action) => {
    setNotice('');
    if (action !== 'deny' && !note.trim()) {
      setNotice('Say why in the note first: it is kept with each report and shown wherever the mark explains a verdict.');
      return;
    }
    setAsking(action);
  };

  const act = async (action: Action) => {
    setBusy(true);
    setAsking(null);
    try {
      if (action === 'deny') {
        let resolved = 0;
        let meanwhile = 0;
        for (const ids of chunks(pendingIds)) {
          const r = await api<ResolveManyAnswer>('/reviews/resolve-many', {
            body: { event_ids: ids, resolution: 'denied', ...(note.trim() && { note: note.trim() }) } satisfies ResolveManyBody,
          });
          resolved += r.resolved;
          meanwhile += r.results.length - r.resolved;
        }
        setNotice(
          `Denied ${plural(resolved, 'review')} of ${plural(selected.length, 'account')}: webhooks queued.${meanwhile ? ` ${plural(meanwhile, 'review was', 'reviews were')} resolved meanwhile, and left as they were.` : ''}`,
        );
      } else {
        let recorded = 0;
        let already = 0;
        const missing: string[] = [];
        for (const accounts of chunks(selected.map((m) => m.external_user_id))) {
          const r = await api<FeedbackManyAnswer>('/feedback/many', {
            body: { accounts, outcome: action, note: note.trim() } satisfies FeedbackManyBody,
          });
          recorded += r.recorded;
          for (const x of r.results) {
            if (!x.ok) missing.push(x.external_user_id);
            else if (x.duplicate) already++;
          }
        }
        setNotice(
          `Reported ${action === 'confirmed_abuse' ? 'confirmed abuse' : 'a false positive'} about ${plural(recorded, 'account')}${already ? `; ${plural(already, 'account')} already carried it` : ''}${missing.length ? `; no events name ${missing.join(', ')}` : ''}. The graph writer applies the marks in order.`,
        );
      }
      setNote('');
      setChosen(new Set());
      await reload();
    } catch (e) {
      setNotice((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (error)
    return (
      <section class="ring">
        <h2>Accounts in this cluster</h2>
        <p class="error" role="alert">
          {error}
        </p>
      </section>
    );
  if (total === null) return <p class="loading">Reading the cluster's accounts…</p>;
  const withPending = members.filter((m) => m.reviews.pending > 0);
  return (
    <section class="ring" data-cluster={clusterId}>
      <h2>
        Accounts in this cluster <span class="muted">({total.toLocaleString('en')}, first seen first)</span>
      </h2>
      <div class="ring-actions">
        <p class="selection">
          <strong>{plural(selected.length, 'account')} selected</strong>
          {selected.length > 0 && <span> ({plural(pendingIds.length, 'pending review')})</span>} ·{' '}
          <button type="button" class="link" onClick={() => choose(members)}>
            select all {members.length < total ? 'shown' : ''}
          </button>{' '}
          ·{' '}
          <button type="button" class="link" onClick={() => choose(withPending)} disabled={withPending.length === 0}>
            select those with pending reviews
          </button>{' '}
          ·{' '}
          <button type="button" class="link" onClick={() => choose([])} disabled={selected.length === 0}>
            clear
          </button>
        </p>
        <input
          name="ring-note"
          class="wide"
          placeholder="Note: why (kept with each resolution and report)"
          maxLength={2000}
          value={note}
          onInput={(e) => setNote(e.currentTarget.value)}
        />
        <div class="buttons">
          <button type="button" class="deny" disabled={busy || pendingIds.length === 0} onClick={() => ask('deny')}>
            {ACTION_WORDS.deny}
          </button>
          <button type="button" disabled={busy || selected.length === 0} onClick={() => ask('confirmed_abuse')}>
            {ACTION_WORDS.confirmed_abuse}
          </button>
          <button type="button" disabled={busy || selected.length === 0} onClick={() => ask('false_positive')}>
            {ACTION_WORDS.false_positive}
          </button>
          <button
            type="button"
            class="link"
            disabled={selected.length !== 1}
            onClick={() => navigate(accountHref(selected[0]!.external_user_id))}
          >
            Open the account
          </button>
        </div>
        {asking && (
          <div class="confirm" role="alert">
            <p class="consequence">{ringConsequence(asking, selected.length, pendingIds.length)}</p>
            <div class="buttons">
              <button type="button" class={asking === 'deny' ? 'deny' : 'approve'} onClick={() => void act(asking)}>
                Confirm: {ACTION_WORDS[asking].toLowerCase()}
              </button>
              <button type="button" class="link" onClick={() => setAsking(null)}>
                Cancel
              </button>
            </div>
          </div>
        )}
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
      </div>
      <table class="rows ring-members">
        <thead>
          <tr>
            <th class="pick">
              <span class="sr-only">Select</span>
            </th>
            <th>Account</th>
            <th class="time">First seen (UTC)</th>
            <th>Verdicts</th>
            <th>Reviews</th>
            <th>Marks standing</th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr data-account={m.external_user_id} class={m.external_user_id === self ? 'self' : ''}>
              <td class="pick">
                <input
                  type="checkbox"
                  aria-label={`select ${m.external_user_id}`}
                  checked={chosen.has(m.external_user_id)}
                  onChange={(e) => toggle(m.external_user_id, e.currentTarget.checked)}
                />
              </td>
              <td class="account">
                <a href={accountHref(m.external_user_id)}>{m.external_user_id}</a>
                {m.external_user_id === self && <span class="muted"> (this account)</span>}
                {m.confirmed && <span class="flag bad">confirmed</span>}
              </td>
              <td class="time">{when(m.first_seen_at).replace(' UTC', '')}</td>
              <td class="verdicts">
                <VerdictCounts v={m.verdicts} />
              </td>
              <td class="reviews">
                <ReviewCounts r={m.reviews} account={m.external_user_id} />
              </td>
              <td class="marks">
                <MarkCounts m={m.marks} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {next && (
        <p>
          <button type="button" class="more" onClick={() => void load(next)}>
            Show {Math.min(BATCH, total - members.length)} more accounts
          </button>{' '}
          <span class="muted">
            {members.length} of {total.toLocaleString('en')} shown.
          </span>
        </p>
      )}
    </section>
  );
}

function VerdictCounts({ v }: { v: RingMember['verdicts'] }) {
  const parts = (['allow', 'review', 'block'] as const).filter((k) => v[k] > 0);
  if (parts.length === 0) return <span class="muted">–</span>;
  return (
    <span>
      {parts.map((k, i) => [
        i > 0 && ', ',
        <span class={`count v-${k}`}>
          {v[k]} {k}
        </span>,
      ])}
    </span>
  );
}

function ReviewCounts({ r, account }: { r: RingMember['reviews']; account: string }) {
  if (r.pending + r.approved + r.denied === 0) return <span class="muted">–</span>;
  const parts = [
    r.pending > 0 && (
      <a class="count pending" href={`/console/queue?text=${encodeURIComponent(account)}`}>
        {r.pending} pending
      </a>
    ),
    r.denied > 0 && <span class="count">{r.denied} denied</span>,
    r.approved > 0 && <span class="count">{r.approved} approved</span>,
  ].filter(Boolean);
  return <span>{parts.map((p, i) => [i > 0 && ', ', p])}</span>;
}

function MarkCounts({ m }: { m: RingMember['marks'] }) {
  const parts = [
    m.confirmed_abuse > 0 && <span class="flag bad">{m.confirmed_abuse > 1 ? `${m.confirmed_abuse}× ` : ''}confirmed abuse</span>,
    m.chargeback > 0 && <span class="flag bad">{plural(m.chargeback, 'chargeback')}</span>,
    m.false_positive > 0 && <span class="flag good">{m.false_positive > 1 ? `${m.false_positive}× ` : ''}false positive</span>,
  ].filter(Boolean);
  return parts.length ? <span>{parts.map((p, i) => [i > 0 && ' ', p])}</span> : <span class="muted">–</span>;
}
