// A bounded, expiring cache in front of one slow lookup, shared by the MX and domain-age sources.
// Answers (positive or negative) are cached; failures never are, so an outage is retried next time.
import { LRUCache } from 'lru-cache';

export type CachedLookupOptions<V extends {}> = {
  maxEntries: number;
  ttlMs: number;
  load: (key: string) => Promise<V>;
};

export type CachedLookup<V> = (key: string) => Promise<V>;

export function createCachedLookup<V extends {}>(options: CachedLookupOptions<V>): CachedLookup<V> {
  const answers = new LRUCache<string, V>({ max: options.maxEntries, ttl: options.ttlMs });
  // A burst of events for one domain shares a single query instead of sending one each.
  const inFlight = new Map<string, Promise<V>>();

  return (key) => {
    const cached = answers.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const pending = inFlight.get(key);
    if (pending) return pending;

    const lookup = options
      .load(key)
      .then((answer) => {
        answers.set(key, answer);
        return answer;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, lookup);
    return lookup;
  };
}
