// Whether an address's domain belongs to a disposable (throwaway) mail provider, from the community
// list shipped by disposable-email-domains-js; privacy relays are never disposable.
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import { domainAndParents } from './domain-and-parents.js';
import { isPrivacyRelayDomain } from './privacy-relay-domains.js';

// Built once: the package's own helper rebuilds a Set of some 9,000 names on every call.
const SHIPPED_LIST: ReadonlySet<string> = disposableEmailBlocklistSet();

// Checks the full domain, every parent, and the registrable domain: the list holds both whole
// providers (`mailinator.com`) and hosts under shared dynamic-DNS suffixes (`x.dynv6.net`).
// `list` is for tests that need a list which names a relay.
export function isDisposableDomain(domain: string, registrableDomain: string, list: ReadonlySet<string> = SHIPPED_LIST): boolean {
  if (isPrivacyRelayDomain(domain, registrableDomain)) return false;
  return domainAndParents(domain, registrableDomain).some((name) => list.has(name));
}
