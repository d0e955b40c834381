// The review queue: pending reviews oldest first, with age; the selected one's detail beside it.
// Keyboard: j/↓ next, k/↑ previous, a approve, d deny, n note, o open the event's page.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, qs } from './api';
import { age } from './format';
import { navigate } from './router';
import { EventView, type Resolver } from './event-view';
import type { ReviewRow } from './types';

interface Queue {
  pending: number;
  oldest_created_at: string | null;
  reviews: ReviewRow[];
  next_cursor?: string;
}

export function QueuePage() {
  const [queue, setQueue] = useState<Queue | null>(null);
  const [index, setIndex] = useState(0);
  const [message, setMessage] = useState('');
  const resolver = useRef<Resolver | null>(null);
  const load = async (cursor?: string) => {
    const page = await api<Queue>(`/reviews${qs({ limit: 50, cursor })}`);
    setQueue((q) => (cursor && q ? { ...page, reviews: [...q.reviews, ...page.reviews] } : page));
  };
  useEffect(() => void load(), []);
  const reviews = queue?.reviews ?? [];
  const selected = reviews[Math.min(index, reviews.length - 1)];

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
        setIndex((i) => Math.max(0, Math.min(reviews.length - 1, i + step)));
      } else if (e.key === 'a' || e.key === 'd') {
        resolver.current?.resolve(e.key === 'a' ? 'approved' : 'denied');
      } else if (e.key === 'n') {
        e.preventDefault();
        resolver.current?.focusNote();
      } else if (e.key === 'o' && selected) {
        navigate(`/console/events/${encodeURIComponent(selected.event_id)}`);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [reviews.length, selected]);

  useEffect(() => {
    document.querySelector('.queue li.selected')?.scrollIntoView({ block: 'nearest' });
  }, [index]);

  const resolved = (text: string) => {
    setMessage(text);
    // The resolved review leaves the queue; the next one (now at the same place) is selected.
    setQueue((q) => q && { ...q, pending: q.pending - 1, reviews: q.reviews.filter((r) => r.event_id !== selected?.event_id) });
  };

  if (!queue) return <p class="loading">Loading the queue…</p>;
  if (reviews.length === 0) {
    return (
      <div class="empty">
        <h1>Review queue</h1>
        <p>No pending reviews in this mode. A review appears here when a verdict is <code>review</code>; nothing waits on you.</p>
        <p>Looking for live data? Use the <strong>live</strong> switch at the top. To see older decisions, search <a href="/console/events">events</a>.</p>
        {message && <p class="notice" role="status">{message}</p>}
      </div>
    );
  }
  return (
    <div class="queue-page">
      <section class="queue">
        <h1>Review queue <span class="count">{queue.pending} pending</span></h1>
        <p class="muted">Oldest waits {queue.oldest_created_at ? age(Math.round((Date.now() - Date.parse(queue.oldest_created_at)) / 1000)) : '–'}. Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>a</kbd> approve, <kbd>d</kbd> deny, <kbd>n</kbd> note, <kbd>o</kbd> open.</p>
        {message && <p class="notice" role="status">{message}</p>}
        <ol>
          {reviews.map((r, i) => (
            <li class={r === selected ? 'selected' : ''} data-event-id={r.event_id} onClick={() => setIndex(i)}>
              <span class="age">{age(r.age_seconds)}</span>
              <span class="type">{r.event_type}</span>
              <span class="codes">{r.reasons.map((x) => x.code).join(', ')}</span>
              <span class="who">{r.external_user_id ?? r.email ?? 'no account'}</span>
            </li>
          ))}
        </ol>
        {queue.next_cursor && <button type="button" onClick={() => void load(queue.next_cursor)}>Load 50 more</button>}
      </section>
      <section class="detail">{selected && <EventView id={selected.event_id} onResolved={resolved} bind={(r) => { resolver.current = r; }} />}</section>
    </div>
  );
}
