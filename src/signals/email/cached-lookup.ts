// A bounded, expiring cache in front of one slow lookup, shared by the MX and domain-age sources:
// lru-cache's fetch, which also makes a burst of events for one domain share a single query.
// Answers (positive or negative) are cached; failures never are, so an outage is retried next time.
import { LRUCache } from 'lru-cache';

export type CachedLookupOptions<V extends {}> = {
  maxEntries: number;
  ttlMs: number;
  load: (key: string) => Promise<V>;
};

export type CachedLookup<V> = (key: string) => Promise<V>;

export function createCachedLookup<V extends {}>(options: CachedLookupOptions<V>): CachedLookup<V> {
  const answers = new LRUCache<string, V>({
    max: options.maxEntries,
    ttl: options.ttlMs,
    fetchMethod: (key) => options.load(key),
  });
  return async (key) => {
    const answer = await answers.fetch(key);
    // fetchMethod never resolves to undefined, so this only guards the type.
    if (answer === undefined) throw new Error(`lookup for ${key} gave no answer`);
    return answer;
  };
}
