// The review queue: pending reviews oldest first, with age, cluster size and a marker on those
// whose cluster was confirmed as abuse since they were queued (with a bulk resolution for them);
// filters and the selected review live in the URL, so opening an event and going back keeps your
// place. The selected one's detail is beside it, stating what each key does before it acts.
// Keyboard: j/↓ next, k/↑ previous, a approve, d deny (twice on a large cluster), Esc cancel,
// n note, o open the event's page.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { age, ageSince, plural, useTitle } from './format';
import { navigate } from './router';
import { EventView } from './event-view';
import { confirmAt, setConfirmAt, type ResolvedNotice, type Resolver } from './review-actions';
import { FILTERS, filtersOf, QueueFilters, queueRequest, type Filters } from './queue-filters';
import type { MarksUndone, Me, ResolveManyAnswer, ResolveManyBody, ReviewQueue, ReviewRow, UndoMarksBody } from './types';

export function QueuePage({ query, me }: { query: URLSearchParams; me: Me }) {
  const filters = filtersOf(query);
  // The filters as one value: a change reloads the queue and starts the filter form again.
  const filtersKey = FILTERS.map((f) => filters[f]).join('\u0000');
  const { queue, setQueue, error, index, setIndex, load } = useQueue(filters, query);
  const [notice, setNotice] = useState<ResolvedNotice | null>(null);
  const [message, setMessage] = useState('');
  // Whether a review was resolved here under these filters (the empty pane then says none is left).
  const [resolvedHere, setResolvedHere] = useState(false);
  const resolver = useRef<Resolver | null>(null);
  useTitle('Review queue');
  useEffect(() => {
    setResolvedHere(false);
    void load();
  }, [filtersKey]);
  const reviews = queue?.reviews ?? [];
  const selected = reviews[Math.min(index, reviews.length - 1)];
  useSelectedInUrl(selected?.event_id);
  useQueueKeys(reviews.length, selected, setIndex, resolver);
  useEffect(() => {
    document.querySelector('.queue li.selected')?.scrollIntoView({ block: 'nearest' });
  }, [index, queue]);
  // The reviews loaded so far all resolved while more may match: the next ones are loaded.
  useEffect(() => {
    if (queue && reviews.length === 0 && queue.next_cursor) void load(queue.next_cursor);
  }, [queue]);

  // A resolved review leaves the queue (and the count of those that match); the next one, now at
  // the same place, is selected.
  const gone = (ids: string[]) => {
    setResolvedHere(true);
    setQueue(
      (q) =>
        q && {
          ...q,
          pending: Math.max(0, q.pending - ids.length),
          ...(q.matching && { matching: { ...q.matching, count: Math.max(0, q.matching.count - ids.length) } }),
          reviews: q.reviews.filter((r) => !ids.includes(r.event_id)),
        },
    );
  };
  const resolved = (n: ResolvedNotice) => {
    setNotice(n);
    setMessage('');
    gone([n.eventId]);
  };
  const bulkResolved = (text: string, ids: string[]) => {
    setMessage(text);
    setNotice(null);
    gone(ids);
  };

  if (error && !queue)
    return (
      <div class="empty">
        <h1>Review queue</h1>
        <p class="error" role="alert">
          {error}
        </p>
      </div>
    );
  if (!queue) return <p class="loading">Loading the queue…</p>;
  const confirmed = reviews.filter((r) => r.cluster?.confirmed_since_queued_at);
  const filtered = FILTERS.some((f) => filters[f]);
  // Under filters the oldest that matches is the first of the list (oldest first).
  const oldest = filtered ? reviews[0]?.created_at : queue.oldest_created_at;
  return (
    <div class="queue-page">
      <section class="queue">
        <h1>
          Review queue <QueueCount queue={queue} filtered={filtered} />
        </h1>
        <p class="muted">
          {filtered ? 'Oldest that matches waits' : 'Oldest waits'} {oldest ? ageSince(oldest) : '–'}. Keys: <kbd>j</kbd>/<kbd>k</kbd> move,{' '}
          <kbd>a</kbd> approve, <kbd>d</kbd> deny, <kbd>n</kbd> note, <kbd>o</kbd> open.
        </p>
        <QueueFilters key={filtersKey} filters={filters} />
        {queue.graph === 'unavailable' && (
          <p class="error">The identity graph did not answer: cluster sizes and markers are missing from this page.</p>
        )}
        {notice && <UndoNotice key={notice.eventId} notice={notice} />}
        {message && (
          <p class="notice" role="status">
            {message}
          </p>
        )}
        {confirmed.length > 0 && <BulkResolve reviews={confirmed} onDone={bulkResolved} />}
        {reviews.length > 0 && <QueueList reviews={reviews} selected={selected} onSelect={setIndex} />}
        {queue.next_cursor && reviews.length > 0 && (
          <button type="button" onClick={() => void load(queue.next_cursor)}>
            Load 50 more
          </button>
        )}
        <ConfirmSetting />
      </section>
      <section class="detail">
        {selected ? (
          <EventView
            id={selected.event_id}
            me={me}
            onResolved={resolved}
            bind={(r) => {
              resolver.current = r;
            }}
          />
        ) : (
          <EmptyQueue filtered={filtered} left={resolvedHere} pending={queue.pending} me={me} />
        )}
      </section>
    </div>
  );
}

// The queue as loaded so far and the selected review's place in it: the first page replaces what
// was there (and selects the review you were on, where it still waits), "Load 50 more" appends.
function useQueue(filters: Filters, query: URLSearchParams) {
  const [queue, setQueue] = useState<ReviewQueue | null>(null);
  const [error, setError] = useState('');
  const [index, setIndex] = useState(0);
  const load = async (cursor?: string) => {
    setError('');
    try {
      const page = await api<ReviewQueue>(`/reviews${queueRequest(filters, cursor)}`);
      // A later page carries no count: the first page's stands.
      setQueue((q) =>
        cursor && q ? { ...page, ...(q.matching && { matching: q.matching }), reviews: [...q.reviews, ...page.reviews] } : page,
      );
      if (!cursor) {
        // Back from an event: the review you were on, where it still waits.
        const at = query.get('at');
        const i = at ? page.reviews.findIndex((r) => r.event_id === at) : -1;
        setIndex(Math.max(0, i));
      }
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return { queue, setQueue, error, index, setIndex, load };
}

// The selected review in the URL (replaced, not pushed: moving in the list is not navigation); with
// none left, the URL names none.
function useSelectedInUrl(eventId: string | undefined) {
  useEffect(() => {
    const q = new URLSearchParams(location.search);
    if (eventId) q.set('at', eventId);
    else q.delete('at');
    const search = q.toString();
    history.replaceState(null, '', `${location.pathname}${search && `?${search}`}`);
  }, [eventId]);
}

// "12 pending"; under filters, how many of them match ("3 of 12 pending match", "at least 50 of
// 900" when a cluster filter's scan stopped at its bound).
function QueueCount({ queue, filtered }: { queue: ReviewQueue; filtered: boolean }) {
  const all = queue.pending.toLocaleString('en');
  if (!filtered || !queue.matching) return <span class="count">{all} pending</span>;
  const { count, complete } = queue.matching;
  return (
    <span
      class="count"
      title={complete ? undefined : 'A cluster filter looks at a bounded number of queued reviews per request; more may match.'}
    >
      {complete ? '' : 'at least '}
      {count.toLocaleString('en')} of {all} pending match
    </span>
  );
}

// The queue's keys (see the top of this file); a key typed into a field stays there, and Escape
// leaves the field.
function useQueueKeys(
  count: number,
  selected: ReviewRow | undefined,
  setIndex: (step: (i: number) => number) => void,
  resolver: { current: Resolver | null },
) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (t.closest('input, textarea, select')) {
        if (e.key === 'Escape') t.blur();
        return;
      }
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      const step = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 }[e.key];
      if (step) {
        e.preventDefault();
        setIndex((i) => Math.max(0, Math.min(count - 1, i + step)));
      } else if (e.key === 'a' || e.key === 'd') {
        resolver.current?.resolve(e.key === 'a' ? 'approved' : 'denied');
      } else if (e.key === 'Escape') {
        resolver.current?.cancel();
      } else if (e.key === 'n') {
        e.preventDefault();
        resolver.current?.focusNote();
      } else if (e.key === 'o' && selected) {
        navigate(`/console/events/${encodeURIComponent(selected.event_id)}`);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [count, selected]);
}

// The reviews, oldest first: age, type, cluster size, codes, who, and the marker of a cluster
// confirmed since the review was queued. A click selects one.
function QueueList({
  reviews,
  selected,
  onSelect,
}: {
  reviews: ReviewRow[];
  selected: ReviewRow | undefined;
  onSelect: (i: number) => void;
}) {
  return (
    <ol>
      {reviews.map((r, i) => (
        <li
          class={`${r === selected ? 'selected' : ''}${r.cluster?.confirmed_since_queued_at ? ' confirmed' : ''}`}
          data-event-id={r.event_id}
          onClick={() => onSelect(i)}
        >
          <span class="age">{age(r.age_seconds)}</span>
          <span class="type">{r.event_type.replace('_', ' ')}</span>
          <span class="size">{r.cluster && r.cluster.accounts > 1 ? plural(r.cluster.accounts, 'account') : ''}</span>
          <span class="codes">{r.reasons.map((x) => x.code).join(', ')}</span>
          <span class="who">
            {r.external_user_id ?? r.email ?? 'no account'}
            {r.cluster?.confirmed_since_queued_at && (
              <span class="flag bad" title={`confirmed at ${r.cluster.confirmed_since_queued_at}`}>
                cluster confirmed since queued
              </span>
            )}
          </span>
        </li>
      ))}
    </ol>
  );
}

// Nothing (or nothing more: `left`, after resolving here) waits, said in the detail pane: under
// filters, the way to clear them and how many wait without them; otherwise where else to look.
function EmptyQueue({ filtered, left, pending, me }: { filtered: boolean; left: boolean; pending: number; me: Me }) {
  const other = me.mode === 'live' ? 'test' : 'live';
  return (
    <div class="empty queue-empty">
      {filtered ? (
        <div>
          <p class="said">{left ? 'No review left that matches these filters.' : 'No pending reviews match these filters.'}</p>
          <p>
            <a href="/console/queue" class="button clear-filters">
              Clear the filters
            </a>{' '}
            {pending > 0 ? `${plural(pending, 'review')} pending without them.` : `No review is pending in ${me.mode} mode at all.`}
          </p>
        </div>
      ) : (
        <div>
          <p class="said">
            {left ? `No review left in ${me.mode} mode.` : `No pending reviews in ${me.mode} mode.`} A review appears here when a verdict is{' '}
            <code>review</code>; nothing waits on you.
          </p>
          <p>
            {me.mode === 'live'
              ? 'Looking for test data? Use the test switch at the top.'
              : 'Looking for live data? Use the live switch at the top.'}{' '}
            To see older decisions, search <a href="/console/events">events</a>.
          </p>
        </div>
      )}
      <p class="muted">
        Reviews of {other} mode are in the {other} queue.
      </p>
    </div>
  );
}

// After a resolution: what happened, and "Undo marks" (the resolution and its webhook stand; the
// graph mark is taken back through the retraction).
function UndoNotice({ notice }: { notice: ResolvedNotice }) {
  const [why, setWhy] = useState('');
  const [state, setState] = useState<'idle' | 'asking' | 'done'>('idle');
  const [text, setText] = useState(notice.text);
  const undo = async (e: Event) => {
    e.preventDefault();
    try {
      await api<MarksUndone>(`/reviews/${encodeURIComponent(notice.eventId)}/undo-marks`, {
        body: { note: why.trim() || 'undone from the queue right after resolving' } satisfies UndoMarksBody,
      });
      setState('done');
      setText(
        `Marks of ${notice.eventId} undone (${notice.resolution === 'denied' ? 'the denial' : 'the approval'} and its webhook stand).`,
      );
    } catch (err) {
      setText((err as Error).message);
    }
  };
  return (
    <div class="notice undo-notice" role="status">
      {text}
      {state === 'idle' && (
        <button type="button" class="link" onClick={() => setState('asking')}>
          Undo marks…
        </button>
      )}
      {state === 'asking' && (
        <form class="inline" onSubmit={undo}>
          <input
            name="undo-note"
            placeholder="why (optional)"
            value={why}
            maxLength={2000}
            onInput={(e) => setWhy(e.currentTarget.value)}
          />
          <button type="submit">Undo marks</button>
        </form>
      )}
    </div>
  );
}

// The reviews whose cluster was confirmed as abuse after they were queued, resolved together.
function BulkResolve({ reviews, onDone }: { reviews: ReviewRow[]; onDone: (text: string, ids: string[]) => void }) {
  const [asking, setAsking] = useState(false);
  const deny = async () => {
    const r = await api<ResolveManyAnswer>('/reviews/resolve-many', {
      body: {
        event_ids: reviews.map((x) => x.event_id),
        resolution: 'denied',
        note: 'cluster confirmed as abuse since queued (bulk)',
      } satisfies ResolveManyBody,
    });
    const failed = r.results.filter((x) => !x.ok);
    onDone(
      `Denied ${plural(r.resolved, 'review')} whose cluster was confirmed${failed.length ? `; ${failed.length} not: ${failed.map((x) => x.message).join(' ')}` : ''}.`,
      r.results.filter((x) => x.ok).map((x) => x.event_id),
    );
    setAsking(false);
  };
  return (
    <div class="bulk">
      {asking ? (
        <p>
          Deny {plural(reviews.length, 'review')} (each sends its webhook)?{' '}
          <button type="button" class="deny" onClick={() => void deny()}>
            Confirm: deny {reviews.length}
          </button>{' '}
          <button type="button" class="link" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </p>
      ) : (
        <p>
          <span class="flag bad">{plural(reviews.length, 'review')}</span> on this page whose cluster was confirmed since queued.{' '}
          <button type="button" onClick={() => setAsking(true)}>
            Deny them all…
          </button>
        </p>
      )}
    </div>
  );
}

function ConfirmSetting() {
  const [n, setN] = useState(confirmAt());
  return (
    <p class="setting muted">
      <label>
        Ask before <kbd>a</kbd>/<kbd>d</kbd> act on a cluster of at least{' '}
        <input
          type="number"
          name="confirm-at"
          min={2}
          class="narrow"
          value={n}
          onChange={(e) => {
            const v = Number(e.currentTarget.value);
            if (Number.isInteger(v) && v >= 2) {
              setConfirmAt(v);
              setN(v);
            }
          }}
        />{' '}
        accounts (this browser).
      </label>
    </p>
  );
}
