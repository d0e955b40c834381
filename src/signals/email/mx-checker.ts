// Whether a domain can receive mail, asked of DNS: MX records, a null MX (RFC 7505), or no MX but an
// address record (RFC 5321 §5.1 implicit MX). Answers are cached; a slow or broken server rejects,
// and so does a resolver that denies the domain's top-level domain: only a real answer is `no_mx`.
import { Resolver } from 'node:dns/promises';
import { beforeDeadline, isDeadline } from '../../deadline.js';
import { createCachedLookup, type CachedLookup } from './cached-lookup.js';
import { DnsLookupError, dnsFailureOf } from './dns-lookup-error.js';

export type MxStatus = 'ok' | 'no_mx' | 'null_mx';

export type MxCheckerOptions = {
  // 'host:port' or bare addresses (config DNS_SERVERS); the system resolvers when absent or empty.
  servers?: readonly string[];
  timeoutMs: number;
  cacheTtlMs: number;
  maxCacheEntries: number;
};

export type MxChecker = { check(domain: string): Promise<MxStatus> };

// DNS answers that settle the question, as opposed to failures to get one. c-ares gives ENOTFOUND
// only for a reply whose rcode is NXDOMAIN, and EBADNAME for a name DNS cannot hold.
const NO_SUCH_DOMAIN = new Set(['ENOTFOUND', 'EBADNAME']);
const NO_RECORDS = 'ENODATA';
// Top-level domains are few; their confirmation is kept as long as an answer.
const MAX_TLDS = 2_000;

type TldConfirmed = CachedLookup<'confirmed'>;

export function createMxChecker(options: MxCheckerOptions): MxChecker {
  // One try per server: the verdict's deadline is too short for c-ares's default four.
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
  // setServers throws on a malformed entry, so a bad DNS_SERVERS fails at boot, not per request.
  if (options.servers?.length) resolver.setServers([...options.servers]);

  const tldConfirmed = createCachedLookup<'confirmed'>({
    maxEntries: MAX_TLDS,
    ttlMs: options.cacheTtlMs,
    load: (tld) => confirmTld(resolver, tld),
  });
  const lookup = createCachedLookup<MxStatus>({
    maxEntries: options.maxCacheEntries,
    ttlMs: options.cacheTtlMs,
    load: (domain) => withinTimeout(resolveStatus(resolver, domain, tldConfirmed), options.timeoutMs, domain),
  });
  return { check: (domain) => lookup(domain.toLowerCase().replace(/\.$/, '')) };
}

async function resolveStatus(resolver: Resolver, domain: string, tldConfirmed: TldConfirmed): Promise<MxStatus> {
  const mx = await answer(resolver.resolveMx(domain));
  if (mx === 'nxdomain') return noMx(domain, tldConfirmed);
  // RFC 7505: the exchange "." (which c-ares gives as '') says the domain accepts no mail.
  if (mx.length > 0) return mx.every((record) => isNullExchange(record.exchange)) ? 'null_mx' : 'ok';

  // No MX: an A or AAAA record is an implicit MX. One family answering is enough, even if the other
  // failed; but with no address, a family that failed means the question is open, not `no_mx`.
  const families = await Promise.allSettled([answer(resolver.resolve4(domain)), answer(resolver.resolve6(domain))]);
  const hasAddress = (result: (typeof families)[number]) =>
    result.status === 'fulfilled' && result.value !== 'nxdomain' && result.value.length > 0;
  if (families.some(hasAddress)) return 'ok';
  const failed = families.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return noMx(domain, tldConfirmed);
}

// A negative answer counts only from a resolver that gives real ones: a resolver that cannot reach
// the internet may answer NXDOMAIN (or nothing) for every name, which would make every domain
// no_mx. Every top-level domain has an SOA, so one whose TLD's SOA the resolver cannot show is not
// answering (the parser admits public suffixes only, so the TLD exists).
async function noMx(domain: string, tldConfirmed: TldConfirmed): Promise<'no_mx'> {
  await tldConfirmed(domain.slice(domain.lastIndexOf('.') + 1));
  return 'no_mx';
}

async function confirmTld(resolver: Resolver, tld: string): Promise<'confirmed'> {
  try {
    await resolver.resolveSoa(tld);
    return 'confirmed';
  } catch (error) {
    const code = codeOf(error);
    if (code === NO_RECORDS || NO_SUCH_DOMAIN.has(code)) {
      const message = `DNS denies the top-level domain ${tld} (${code} for its SOA): its negative answers are not real`;
      throw new DnsLookupError('tld_missing', message, { cause: error });
    }
    throw lookupError(code, error);
  }
}

function isNullExchange(exchange: string): boolean {
  return exchange === '' || exchange === '.';
}

// Turns a DNS promise into records, 'nxdomain', or a DnsLookupError for everything that is not an answer.
async function answer<T>(query: Promise<T[]>): Promise<T[] | 'nxdomain'> {
  try {
    return await query;
  } catch (error) {
    const code = codeOf(error);
    if (code === NO_RECORDS) return [];
    if (NO_SUCH_DOMAIN.has(code)) return 'nxdomain';
    throw lookupError(code, error);
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? '';
}

// ETIMEOUT is the resolver's own timer; ESERVFAIL, EREFUSED, ECONNREFUSED and the rest are outages.
function lookupError(code: string, cause: unknown): DnsLookupError {
  return new DnsLookupError(dnsFailureOf(code), `DNS lookup failed: ${code || 'unknown error'}`, { cause });
}

// c-ares's timeout is per try and per server, and backs off; our own deadline is the one that holds.
async function withinTimeout<T>(work: Promise<T>, timeoutMs: number, domain: string): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    return await beforeDeadline(work, deadline);
  } catch (error) {
    if (isDeadline(error, deadline)) throw new DnsLookupError('timeout', `DNS lookup for ${domain} ran past ${timeoutMs} ms`);
    throw error;
  }
}
