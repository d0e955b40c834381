// Whether a domain can receive mail, asked of DNS: MX records, a null MX (RFC 7505), or no MX but an
// address record (RFC 5321 §5.1 implicit MX). Answers are cached; a slow or broken server rejects.
import { Resolver } from 'node:dns/promises';
import { beforeDeadline, isDeadline } from '../../deadline.js';
import { createCachedLookup } from './cached-lookup.js';
import { LookupError } from './lookup-error.js';

export type MxStatus = 'ok' | 'no_mx' | 'null_mx';

export type MxCheckerOptions = {
  // 'host:port' or bare addresses (config DNS_SERVERS); the system resolvers when absent or empty.
  servers?: readonly string[];
  timeoutMs: number;
  cacheTtlMs: number;
  maxCacheEntries: number;
};

export type MxChecker = { check(domain: string): Promise<MxStatus> };

// DNS answers that settle the question, as opposed to failures to get one.
const NO_SUCH_DOMAIN = new Set(['ENOTFOUND', 'EBADNAME']);
const NO_RECORDS = 'ENODATA';

export function createMxChecker(options: MxCheckerOptions): MxChecker {
  // One try per server: the verdict's deadline is too short for c-ares's default four.
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
  // setServers throws on a malformed entry, so a bad DNS_SERVERS fails at boot, not per request.
  if (options.servers?.length) resolver.setServers([...options.servers]);

  const lookup = createCachedLookup<MxStatus>({
    maxEntries: options.maxCacheEntries,
    ttlMs: options.cacheTtlMs,
    load: (domain) => withinTimeout(resolveStatus(resolver, domain), options.timeoutMs, domain),
  });
  return { check: (domain) => lookup(domain.toLowerCase().replace(/\.$/, '')) };
}

async function resolveStatus(resolver: Resolver, domain: string): Promise<MxStatus> {
  const mx = await answer(resolver.resolveMx(domain));
  if (mx === 'nxdomain') return 'no_mx';
  // RFC 7505: the exchange "." (which c-ares gives as '') says the domain accepts no mail.
  if (mx.length > 0) return mx.every((record) => isNullExchange(record.exchange)) ? 'null_mx' : 'ok';

  // No MX: an A or AAAA record is an implicit MX. One family answering is enough, even if the other failed.
  const families = await Promise.allSettled([answer(resolver.resolve4(domain)), answer(resolver.resolve6(domain))]);
  const hasAddress = (result: (typeof families)[number]) =>
    result.status === 'fulfilled' && result.value !== 'nxdomain' && result.value.length > 0;
  if (families.some(hasAddress)) return 'ok';
  const failed = families.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return 'no_mx';
}

function isNullExchange(exchange: string): boolean {
  return exchange === '' || exchange === '.';
}

// Turns a DNS promise into records, 'nxdomain', or a LookupError for everything that is not an answer.
async function answer<T>(query: Promise<T[]>): Promise<T[] | 'nxdomain'> {
  try {
    return await query;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === NO_RECORDS) return [];
    if (NO_SUCH_DOMAIN.has(code)) return 'nxdomain';
    // ETIMEOUT is the resolver's own timer; ESERVFAIL, EREFUSED, ECONNREFUSED and the rest are outages.
    const kind = code === 'ETIMEOUT' ? 'timeout' : 'unavailable';
    throw new LookupError(kind, `DNS lookup failed: ${code || 'unknown error'}`, { cause: error });
  }
}

// c-ares's timeout is per try and per server, and backs off; our own deadline is the one that holds.
async function withinTimeout<T>(work: Promise<T>, timeoutMs: number, domain: string): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    return await beforeDeadline(work, deadline);
  } catch (error) {
    if (isDeadline(error, deadline)) throw new LookupError('timeout', `DNS lookup for ${domain} ran past ${timeoutMs} ms`);
    throw error;
  }
}
