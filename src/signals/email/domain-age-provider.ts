// How long ago a domain was registered, from an RDAP server (RFC 9083) over HTTP. Off when no base
// URL is configured; registration dates are cached, timeouts and outages reject with a LookupError.
import { createCachedLookup } from './cached-lookup.js';
import { LookupError } from './lookup-error.js';

export type DomainAgeProviderOptions = {
  // e.g. an RDAP bootstrap service or a registry's server; the provider is off when absent or empty.
  rdapBaseUrl?: string;
  timeoutMs: number;
  cacheTtlMs?: number;
  maxCacheEntries?: number;
};

export type DomainAgeProvider = {
  readonly enabled: boolean;
  // Whole days from registration to `now`; null when off or when the registry has no date for it.
  ageDays(registrableDomain: string, now: Date): Promise<number | null>;
};

const DAY_MS = 86_400_000;
// A registration date never changes, so a day's cache only bounds memory and picks up transfers.
const DEFAULT_TTL_MS = DAY_MS;
const DEFAULT_MAX_ENTRIES = 10_000;

// The cache cannot hold null, so an unknown date is wrapped.
type Registration = { at: number | null };

export function createDomainAgeProvider(options: DomainAgeProviderOptions): DomainAgeProvider {
  const baseUrl = options.rdapBaseUrl?.trim().replace(/\/+$/, '');
  if (!baseUrl) return { enabled: false, ageDays: async () => null };

  const lookup = createCachedLookup<Registration>({
    maxEntries: options.maxCacheEntries ?? DEFAULT_MAX_ENTRIES,
    ttlMs: options.cacheTtlMs ?? DEFAULT_TTL_MS,
    load: (domain) => fetchRegistration(baseUrl, domain, options.timeoutMs),
  });
  return {
    enabled: true,
    async ageDays(domain, now) {
      const { at } = await lookup(domain.toLowerCase());
      // The age is computed per call from the cached date, so it does not go stale in the cache.
      return at === null ? null : Math.max(0, Math.floor((now.getTime() - at) / DAY_MS));
    },
  };
}

async function fetchRegistration(baseUrl: string, domain: string, timeoutMs: number): Promise<Registration> {
  const url = `${baseUrl}/domain/${encodeURIComponent(domain)}`;
  // One signal bounds the whole exchange, connection and body both.
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, { signal, headers: { accept: 'application/rdap+json, application/json' } });
    // 404 is an answer (the registry knows no such domain), not an outage; the MX check covers existence.
    if (response.status === 404) return { at: null };
    if (!response.ok) throw new LookupError('unavailable', `RDAP answered ${response.status} for ${domain}`);
    return { at: registrationTime(await response.json()) };
  } catch (error) {
    if (error instanceof LookupError) throw error;
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      throw new LookupError('timeout', `RDAP lookup for ${domain} ran past ${timeoutMs} ms`, { cause: error });
    }
    // Connection refused, reset, or a body that is not JSON.
    throw new LookupError('unavailable', `RDAP lookup for ${domain} failed`, { cause: error });
  }
}

// RFC 9083 §4.5: `events` is a list of { eventAction, eventDate }; the registration is the one we want.
function registrationTime(body: unknown): number | null {
  const events = (body as { events?: unknown } | null)?.events;
  if (!Array.isArray(events)) return null;
  const registration = (events as Array<{ eventAction?: unknown; eventDate?: unknown } | null>).find(
    (event) => typeof event === 'object' && event?.eventAction === 'registration',
  );
  const at = typeof registration?.eventDate === 'string' ? Date.parse(registration.eventDate) : NaN;
  return Number.isNaN(at) ? null : at;
}
