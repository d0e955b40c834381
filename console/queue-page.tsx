// The review queue: pending reviews oldest first, with age, cluster size and a marker on those
// whose cluster was confirmed as abuse since they were queued (with a bulk resolution for them);
// filters and the selected review live in the URL, so opening an event and going back keeps your
// place. The selected one's detail is beside it, stating what each key does before it acts.
// Keyboard: j/↓ next, k/↑ previous, a approve, d deny (twice on a large cluster), Esc cancel,
// n note, o open the event's page.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { age, plural, useTitle } from './format';
import { navigate } from './router';
import { EventView } from './event-view';
import { confirmAt, setConfirmAt, type ResolvedNotice, type Resolver } from './review-actions';
import { FILTERS, filtersOf, QueueFilters, queueRequest, type Filters } from './queue-filters';
import type { MarksUndone, Me, ResolveManyAnswer, ResolveManyBody, ReviewQueue, ReviewRow, UndoMarksBody } from './types';

export function QueuePage({ query, me }: { query: URLSearchParams; me: Me }) {
  const filters = filtersOf(query);
  const { queue, setQueue, error, index, setIndex, load } = useQueue(filters, query);
  const [notice, setNotice] = useState<ResolvedNotice | null>(null);
  const [message, setMessage] = useState('');
  const resolver = useRef<Resolver | null>(null);
  useTitle('Review queue');
  useEffect(() => {
    void load();
  }, [FILTERS.map((f) => filters[f]).join('\u0000')]);
  const reviews = queue?.reviews ?? [];
  const selected = reviews[Math.min(index, reviews.length - 1)];
  useSelectedInUrl(selected?.event_id);
  useQueueKeys(reviews.length, selected, setIndex, resolver);
  useEffect(() => {
    document.querySelector('.queue li.selected')?.scrollIntoView({ block: 'nearest' });
  }, [index, queue]);

  // A resolved review leaves the queue; the next one (now at the same place) is selected.
  const gone = (ids: string[]) =>
    setQueue(
      (q) =>
        q && {
          ...q,
          pending: q.pending - ids.length,
          reviews: q.reviews.filter((r) => !ids.includes(r.event_id)),
        },
    );
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
  return (
    <div class="queue-page">
      <section class="queue">
        <h1>
          Review queue <span class="count">{queue.pending} pending</span>
        </h1>
        <p class="muted">
          Oldest waits {queue.oldest_created_at ? age(Math.round((Date.now() - Date.parse(queue.oldest_created_at)) / 1000)) : '–'}. Keys:{' '}
          <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>a</kbd> approve, <kbd>d</kbd> deny, <kbd>n</kbd> note, <kbd>o</kbd> open.
        </p>
        <QueueFilters filters={filters} />
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
        {reviews.length === 0 ? (
          <EmptyQueue filtered={FILTERS.some((f) => filters[f])} me={me} />
        ) : (
          <QueueList reviews={reviews} selected={selected} onSelect={setIndex} />
        )}
        {queue.next_cursor && (
          <button type="button" onClick={() => void load(queue.next_cursor)}>
            Load 50 more
          </button>
        )}
        <ConfirmSetting />
      </section>
      <section class="detail">
        {selected && (
          <EventView
            id={selected.event_id}
            me={me}
            onResolved={resolved}
            bind={(r) => {
              resolver.current = r;
            }}
          />
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
      setQueue((q) => (cursor && q ? { ...page, reviews: [...q.reviews, ...page.reviews] } : page));
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

// The selected review in the URL (replaced, not pushed: moving in the list is not navigation).
function useSelectedInUrl(eventId: string | undefined) {
  useEffect(() => {
    if (!eventId) return;
    const q = new URLSearchParams(location.search);
    q.set('at', eventId);
    history.replaceState(null, '', `${location.pathname}?${q}`);
  }, [eventId]);
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

// Nothing waits: under filters, the way to clear them; otherwise where else to look.
function EmptyQueue({ filtered, me }: { filtered: boolean; me: Me }) {
  const other = me.mode === 'live' ? 'test' : 'live';
  return (
    <div class="empty">
      {filtered ? (
        <p>
          No pending reviews match these filters. <a href="/console/queue">Clear the filters</a>.
        </p>
      ) : (
        <div>
          <p>
            No pending reviews in {me.mode} mode. A review appears here when a verdict is <code>review</code>; nothing waits on you.
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

// After a resolution: what happened, and the undo of its marks (the resolution and its webhook
// stand; the graph mark is taken back through the retraction).
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
        `Took back the marks of ${notice.eventId} (${notice.resolution === 'denied' ? 'the denial' : 'the approval'} and its webhook stand).`,
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
          Undo its marks
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
          <button type="submit">Take the marks back</button>
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
