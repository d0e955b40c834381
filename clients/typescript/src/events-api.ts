// Stored events: list (an async iterator that follows `next_cursor` until it no longer appears),
// get, and attachUser (write-once; the same value again is fine, another is 409 `conflict`).
// These calls are idempotent, so 429 and 5xx are retried like the verdict call; they never fail open.
import type { EventListQuery, EventPage, StoredEvent } from './contract-types.js';
import { sendWithRetries } from './send-with-retries.js';
import { budgetOf, type CallOptions, type Transport } from './transport.js';

export interface EventsApi {
  // Every matching event, newest first, fetched a page (`limit`, default 50) at a time.
  list(query?: EventListQuery, options?: CallOptions): AsyncIterableIterator<StoredEvent>;
  // The same, a page at a time.
  pages(query?: EventListQuery, options?: CallOptions): AsyncIterableIterator<EventPage>;
  // A 404 (unknown id, or another tenant's or mode's) throws DoormanError with code `not_found`.
  get(id: string, options?: CallOptions): Promise<StoredEvent>;
  attachUser(id: string, externalUserId: string, options?: CallOptions): Promise<void>;
}

export function eventsApi(transport: Transport): EventsApi {
  const retries = (options?: CallOptions) => budgetOf(transport, options);

  async function* pages(query: EventListQuery = {}, options?: CallOptions): AsyncIterableIterator<EventPage> {
    let cursor: string | undefined;
    do {
      // Only the parameters that are set: the query string carries no `limit=undefined`.
      const params = Object.fromEntries(Object.entries({ ...query, cursor }).filter(([, v]) => v !== undefined));
      const { data } = await sendWithRetries<EventPage>(
        (signal) =>
          transport.api.GET('/v1/events', {
            params: { query: { query: params } },
            // The contract's query is one exploded form object: `limit=2&verdict=allow`.
            querySerializer: { object: { style: 'form', explode: true } },
            signal,
          }),
        retries(options),
      );
      yield data;
      cursor = data.next_cursor;
    } while (cursor);
  }

  return {
    pages,
    async *list(query, options) {
      for await (const page of pages(query, options)) yield* page.events;
    },
    async get(id, options) {
      const { data } = await sendWithRetries<StoredEvent>(
        (signal) => transport.api.GET('/v1/events/{id}', { params: { path: { id } }, signal }),
        retries(options),
      );
      return data;
    },
    async attachUser(id, externalUserId, options) {
      await sendWithRetries(
        (signal) =>
          transport.api.PATCH('/v1/events/{id}', { params: { path: { id } }, body: { external_user_id: externalUserId }, signal }),
        retries(options),
      );
    },
  };
}
