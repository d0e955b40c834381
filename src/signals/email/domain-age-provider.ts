// How long ago a domain was registered, from an RDAP server (RFC 9083) over HTTP: the server of
// its top-level domain, from IANA's bootstrap registry (RFC 9224, fetched by src/intel/), or one
// server for every domain when RDAP_BASE_URL says so. Off while neither is there. Registration
// dates are cached per registrable domain; a top-level domain without an RDAP server, a timeout
// and an outage reject with a LookupError (a missing signal, never a verdict about the domain).
import { createCachedLookup } from './cached-lookup.js';
import { LookupError } from './lookup-error.js';

export type DomainAgeProviderOptions = {
  // One server for every domain (an RDAP bootstrap service, a registry's server): overrides `servers`.
  rdapBaseUrl?: string;
  // The RDAP base URL of each top-level domain; undefined while no bootstrap registry is held.
  servers?: () => ReadonlyMap<string, string> | undefined;
  timeoutMs: number;
  cacheTtlMs?: number;
  maxCacheEntries?: number;
};

export type DomainAgeProvider = {
  // Whether a server can be found now (a base URL, or a bootstrap registry held).
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
  const baseUrl = options.rdapBaseUrl?.trim().replace(/\/+$/, '') || undefined;
  // The server of a domain: the one base URL, or its top-level domain's; null when none is known.
  const serverOf = (domain: string): string | null | undefined => {
    if (baseUrl) return baseUrl;
    const servers = options.servers?.();
    if (!servers) return undefined;
    return servers.get(domain.slice(domain.lastIndexOf('.') + 1)) ?? null;
  };
  const lookup = createCachedLookup<Registration>({
    maxEntries: options.maxCacheEntries ?? DEFAULT_MAX_ENTRIES,
    ttlMs: options.cacheTtlMs ?? DEFAULT_TTL_MS,
    load: (domain) => {
      const server = serverOf(domain);
      if (!server) throw new LookupError('unavailable', `no RDAP server for .${domain.slice(domain.lastIndexOf('.') + 1)}`);
      return fetchRegistration(server, domain, options.timeoutMs);
    },
  });
  return {
    get enabled() {
      return serverOf('x.invalid') !== undefined;
    },
    async ageDays(domain, now) {
      const name = domain.toLowerCase();
      // Off (no base URL, no bootstrap held): no signal, and none missing.
      if (serverOf(name) === undefined) return null;
      const { at } = await lookup(name);
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
