// Events: search by event id, external user id, email (whole, start or domain), IP, card
// fingerprint, identity value, reason code, review state, verdict, type and a UTC time range,
// newest first, a page at a time; and one event's page.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { isoToUtcInput, useTitle, utcInputToIso, when } from './format';
import { navigate } from './router';
import { useDraft } from './draft';
import { EventTable, EventView } from './event-view';
import type { EventRow, Me } from './types';

const FIELDS = [
  'id',
  'external_user_id',
  'email',
  'ip',
  'card',
  'identity',
  'reason',
  'review',
  'verdict',
  'event_type',
  'from',
  'to',
  'resolved_from',
  'resolved_to',
  'feedback',
  'feedback_from',
  'feedback_to',
  'undone_from',
  'undone_to',
] as const;
type Field = (typeof FIELDS)[number];
type Filters = Record<Field, string>;
const TIMES = new Set<Field>(['from', 'to']);
// Filters the overview's links set, which the form does not show: kept until cleared.
const LINKED = new Set<Field>(['resolved_from', 'resolved_to', 'feedback', 'feedback_from', 'feedback_to', 'undone_from', 'undone_to']);

export function EventsPage({ query }: { query: URLSearchParams }) {
  // Times in the URL are ISO instants (UTC); the inputs show them as UTC wall-clock ("2026-11-24 22:03").
  const filters = Object.fromEntries(FIELDS.map((f) => [f, query.get(f) ?? ''])) as Filters;
  const { events, cursor, error, search } = useEvents(filters);
  useTitle('Events');
  useEffect(() => {
    void search();
  }, [query.toString()]);
  return (
    <div>
      <h1>Events</h1>
      <EventsFilters key={query.toString()} filters={filters} />
      <LinkedFilters filters={filters} />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {events === null ? (
        <p class="loading">Searching…</p>
      ) : (
        <EventTable
          events={events}
          empty="No events match. Widen the time range or clear a filter; events appear here once your product calls POST /v1/verdict in this mode."
        />
      )}
      {cursor && (
        <button type="button" onClick={() => void search(cursor)}>
          Older events
        </button>
      )}
    </div>
  );
}

// The events found so far under these filters: a search replaces them, "Older events" (a
// search after the cursor) appends the next page.
function useEvents(filters: Filters) {
  const [events, setEvents] = useState<EventRow[] | null>(null);
  const [cursor, setCursor] = useState<string | undefined>();
  const [error, setError] = useState('');
  const search = async (next?: string) => {
    setError('');
    try {
      const page = await api<{ events: EventRow[]; next_cursor?: string }>(`/events${qs({ ...filters, cursor: next })}`);
      setEvents((old) => (next && old ? [...old, ...page.events] : page.events));
      setCursor(page.next_cursor);
    } catch (e) {
      setError((e as Error).message);
      setEvents([]);
    }
  };
  return { events, cursor, error, search };
}

// The search form: searching navigates to the events with the form's filters in the URL, keeping
// the linked filters, which the form does not show. A time it cannot read is said, not dropped.
function EventsFilters({ filters }: { filters: Filters }) {
  const [unread, setUnread] = useState('');
  // Times are drafted as shown (UTC wall-clock), the rest as in the URL.
  const form = useDraft<Field>({ ...filters, from: isoToUtcInput(filters.from), to: isoToUtcInput(filters.to) });
  const submit = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const value = (f: Field) => String(data.get(f) ?? '').trim();
    const bad = [...TIMES].find((f) => value(f) && !utcInputToIso(value(f)));
    setUnread(bad ? `${bad === 'from' ? 'From' : 'To'} (UTC): write the time as 2026-11-24 22:03 (a date alone is its midnight).` : '');
    if (bad) return;
    const sent = (f: Field) => (LINKED.has(f) ? filters[f] : TIMES.has(f) ? (utcInputToIso(value(f)) ?? '') : value(f));
    navigate(`/console/events${qs(Object.fromEntries(FIELDS.map((f) => [f, sent(f)])))}`);
  };
  return (
    <form class="search" onSubmit={submit}>
      <TextFilters form={form} />
      <ChoiceFilters form={form} />
      <UtcTime field={form.text('from')} label="From (UTC)" />
      <UtcTime field={form.text('to')} label="To (UTC)" />
      <button type="submit">Search</button>
      {unread && (
        <p class="error" role="alert">
          {unread}
        </p>
      )}
    </form>
  );
}

// A time typed and shown in UTC as "2026-11-24 22:03": a text box, since the browser's own date
// box shows the browser's locale ("11/24/2026, 10:03 PM") whatever its label says.
type Form = ReturnType<typeof useDraft<Field>>;
const UtcTime = ({ field, label }: { field: ReturnType<Form['text']>; label: string }) => (
  <label>
    {label}
    <input
      class="utc-time"
      {...field}
      placeholder="2026-11-24 22:03"
      inputMode="numeric"
      spellcheck={false}
      autoComplete="off"
      title="UTC, as YYYY-MM-DD HH:MM"
    />
  </label>
);

// The form's text fields: the event id, the account, its email, IP, card fingerprint and identity,
// and a reason code.
function TextFilters({ form }: { form: Form }) {
  return (
    <>
      <label>
        Event id
        <input {...form.text('id')} placeholder="evt_…" />
      </label>
      <label>
        External user id
        <input {...form.text('external_user_id')} />
      </label>
      <label title="A whole address; the start of one ending in * (jane*); or a domain (@mailinator.com, or mailinator.com)">
        Email, start or domain
        <input {...form.text('email')} placeholder="jane*, mailinator.com" />
      </label>
      <label>
        IP
        <input {...form.text('ip')} />
      </label>
      <label>
        Card fingerprint
        <input {...form.text('card')} />
      </label>
      <label title="An identity value as kind=value, as the request sent it">
        Identity
        <input {...form.text('identity')} placeholder="phone=+15550001" />
      </label>
      <label>
        Reason code
        <input {...form.text('reason')} placeholder="disposable_email" />
      </label>
    </>
  );
}

// The form's choices: the review state, the verdict and the event type.
function ChoiceFilters({ form }: { form: Form }) {
  return (
    <>
      <label>
        Review
        <select {...form.choice('review')}>
          <option value="">any</option>
          <option value="pending">pending</option>
          <option value="approved">approved</option>
          <option value="denied">denied</option>
          <option value="none">not a review</option>
        </select>
      </label>
      <label>
        Verdict
        <select {...form.choice('verdict')}>
          <option value="">any</option>
          <option>allow</option>
          <option>review</option>
          <option>block</option>
        </select>
      </label>
      <label>
        Type
        <select {...form.choice('event_type')}>
          <option value="">any</option>
          {['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'].map((t) => (
            <option>{t}</option>
          ))}
        </select>
      </label>
    </>
  );
}

// The filters the overview's links set (resolved reviews, feedback): said in words, with the way
// to clear them.
function LinkedFilters({ filters }: { filters: Filters }) {
  return (
    <>
      {(filters.resolved_from || filters.resolved_to) && (
        <p class="muted linked-filter">
          Reviews resolved from {when(filters.resolved_from || null)} to {when(filters.resolved_to || null)}.{' '}
          <a href="/console/events">Clear</a>
        </p>
      )}
      {(filters.undone_from || filters.undone_to) && (
        <p class="muted linked-filter">
          Reviews whose marks were undone from {when(filters.undone_from || null)} to {when(filters.undone_to || null)} (the resolution
          stands; its mark on the cluster was taken back). <a href="/console/events">Clear</a>
        </p>
      )}
      {filters.feedback && (
        <p class="muted linked-filter">
          Events that {filters.feedback === 'retracted' ? 'feedback retracted' : `${filters.feedback.replace('_', ' ')} feedback reported`}{' '}
          from {when(filters.feedback_from || null)} to {when(filters.feedback_to || null)} was about (the event, its account or its email).{' '}
          <a href="/console/events">Clear</a>
        </p>
      )}
    </>
  );
}

export function EventPage({ id, me }: { id: string; me: Me }) {
  useTitle(`Event ${id}`);
  return <EventView id={id} me={me} />;
}
