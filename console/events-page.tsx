// Events: search by event id, external user id, email, verdict, type and time range, newest
// first, a page at a time; and one event's page.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { navigate } from './router';
import { EventTable, EventView } from './event-view';
import type { EventRow } from './types';

const FIELDS = ['id', 'external_user_id', 'email', 'verdict', 'event_type', 'from', 'to'] as const;

export function EventsPage({ query }: { query: URLSearchParams }) {
  const filters = Object.fromEntries(FIELDS.map((f) => [f, query.get(f) ?? ''])) as Record<(typeof FIELDS)[number], string>;
  const [events, setEvents] = useState<EventRow[] | null>(null);
  const [cursor, setCursor] = useState<string | undefined>();
  const [error, setError] = useState('');
  const search = async (next?: string) => {
    setError('');
    try {
      const toIso = (v: string) => (v ? new Date(v).toISOString() : undefined);
      const page = await api<{ events: EventRow[]; next_cursor?: string }>(`/events${qs({ ...filters, from: toIso(filters.from), to: toIso(filters.to), cursor: next })}`);
      setEvents((old) => (next && old ? [...old, ...page.events] : page.events));
      setCursor(page.next_cursor);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => void search(), [query.toString()]);
  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    navigate(`/console/events${qs(Object.fromEntries(FIELDS.map((f) => [f, String(form.get(f) ?? '').trim()])))}`);
  };
  return (
    <div>
      <h1>Events</h1>
      <form class="search" onSubmit={submit}>
        <label>Event id<input name="id" value={filters.id} placeholder="evt_…" /></label>
        <label>External user id<input name="external_user_id" value={filters.external_user_id} /></label>
        <label>Email<input name="email" value={filters.email} /></label>
        <label>Verdict<select name="verdict" value={filters.verdict}><option value="">any</option><option>allow</option><option>review</option><option>block</option></select></label>
        <label>Type<select name="event_type" value={filters.event_type}><option value="">any</option>{['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'].map((t) => <option>{t}</option>)}</select></label>
        <label>From<input type="datetime-local" name="from" value={filters.from} /></label>
        <label>To<input type="datetime-local" name="to" value={filters.to} /></label>
        <button type="submit">Search</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      {events === null ? <p class="loading">Searching…</p> : (
        <EventTable events={events} empty="No events match. Widen the time range or clear a filter; events appear here once your product calls POST /v1/verdict in this mode." />
      )}
      {cursor && <button type="button" onClick={() => void search(cursor)}>Older events</button>}
    </div>
  );
}

export function EventPage({ id }: { id: string }) {
  return <EventView id={id} />;
}
