// The review queue's filters: kept in the page's URL (so opening an event and going back keeps
// them), shown as a form that puts them there, and asked of the API as its query string.
import { qs } from './api';
import { useDraft } from './draft';
import { navigate } from './router';

export const FILTERS = ['event_type', 'reason', 'age', 'min_accounts', 'text', 'confirmed'] as const;
export type Filters = Record<(typeof FILTERS)[number], string>;

// The age choices, as the API's minutes.
const AGES: Record<string, { label: string; older_than_minutes?: number; newer_than_minutes?: number }> = {
  '': { label: 'any age' },
  'new-1h': { label: 'queued in the last hour', newer_than_minutes: 60 },
  'over-1h': { label: 'waiting over 1 h', older_than_minutes: 60 },
  'over-24h': { label: 'waiting over 24 h', older_than_minutes: 1440 },
};

export const filtersOf = (query: URLSearchParams): Filters => Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? ''])) as Filters;

// The query string of GET /reviews for a page of 50 under these filters, after `cursor`.
export function queueRequest(filters: Filters, cursor?: string): string {
  const a = AGES[filters.age] ?? AGES['']!;
  return qs({
    limit: 50,
    cursor,
    event_type: filters.event_type,
    reason: filters.reason,
    text: filters.text,
    min_accounts: filters.min_accounts,
    confirmed: filters.confirmed ? '1' : undefined,
    older_than_minutes: a.older_than_minutes,
    newer_than_minutes: a.newer_than_minutes,
  });
}

// Filtering navigates to the queue with the form's filters in its URL.
const apply = (e: Event) => {
  e.preventDefault();
  const form = new FormData(e.currentTarget as HTMLFormElement);
  navigate(`/console/queue${qs(Object.fromEntries(FILTERS.map((f) => [f, String(form.get(f) ?? '').trim()])))}`);
};

// Mounted with the URL's filters as its key: what is typed stays while the queue reloads or redraws.
export function QueueFilters({ filters }: { filters: Filters }) {
  const form = useDraft<(typeof FILTERS)[number]>(filters);
  return (
    <form class="filters" onSubmit={apply}>
      <select {...form.choice('event_type')} aria-label="Event type">
        <option value="">any type</option>
        {['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'].map((t) => (
          <option value={t}>{t}</option>
        ))}
      </select>
      <input {...form.text('reason')} placeholder="reason code" aria-label="Reason code" size={14} />
      <select {...form.choice('age')} aria-label="Age">
        {Object.entries(AGES).map(([k, a]) => (
          <option value={k}>{a.label}</option>
        ))}
      </select>
      <input
        {...form.text('min_accounts')}
        type="number"
        min={2}
        placeholder="cluster ≥"
        aria-label="Cluster at least (accounts)"
        class="narrow"
      />
      <input {...form.text('text')} placeholder="user, email or domain" aria-label="User, email or domain" size={16} />
      <label class="check">
        <input type="checkbox" {...form.check('confirmed')} /> cluster confirmed since queued
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}
