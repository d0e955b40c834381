// The email facts one event is judged on: syntax, disposable and freemail domains, MX, domain age.
// Facts only; the engine's rules turn them into reasons. A lookup that fails is reported, not thrown.
import { isDisposableDomain } from './disposable-domains.js';
import { dnsFailureOfError, type DnsFailure } from './dns-lookup-error.js';
import type { DomainAgeProvider } from './domain-age-provider.js';
import { isFreemailDomain } from './freemail-domains.js';
import { lookupFailureOf, type LookupFailure } from './lookup-error.js';
import type { MxChecker, MxStatus } from './mx-checker.js';
import { parseEmail } from './parse-email.js';

// What looking an address up found, with why each lookup that failed did (the engine reads
// EmailSignal, engine/types.ts: the facts alone).
export type EmailLookup = {
  malformed: boolean;
  disposable: boolean;
  freemail: boolean;
  // The A-label domain and its eTLD+1; absent when the address has no usable domain.
  domain?: string;
  registrableDomain?: string;
  // Absent when not asked (malformed address) or when the lookup failed; the error says which.
  mx?: MxStatus;
  mxError?: LookupFailure;
  // Why DNS gave no answer, with mxError (doorman_dns_lookup_failures_total): not a fact the engine reads.
  dnsFailure?: DnsFailure;
  // Absent when the provider is off or the registry has no date.
  domainAgeDays?: number;
  domainAgeError?: LookupFailure;
};

export type EmailSignalsDeps = {
  mx: MxChecker;
  domainAge: DomainAgeProvider;
  // The disposable domains fetched from the maintained public list (src/intel/), beside the
  // package's list, which stays the floor.
  fetchedDisposable?: () => ReadonlySet<string>;
  now: () => Date;
};

export type EmailSignals = { collect(rawEmail: string): Promise<EmailLookup> };

export function createEmailSignals(deps: EmailSignalsDeps): EmailSignals {
  return {
    async collect(rawEmail) {
      const parsed = parseEmail(rawEmail);
      const signal: EmailLookup = { malformed: !parsed.ok, disposable: false, freemail: false };
      if (parsed.asciiDomain) signal.domain = parsed.asciiDomain;
      // A malformed address is judged on its syntax alone: no DNS or RDAP traffic for garbage input.
      if (!parsed.ok || !parsed.registrableDomain) return signal;

      const { asciiDomain: domain, registrableDomain } = parsed;
      signal.registrableDomain = registrableDomain;
      const fetched = deps.fetchedDisposable?.();
      signal.disposable =
        isDisposableDomain(domain, registrableDomain) || (!!fetched && isDisposableDomain(domain, registrableDomain, fetched));
      signal.freemail = isFreemailDomain(domain, registrableDomain);

      // Both lookups run at once, each under its own timeout, so collect() ends within the longer one.
      const [mx, age] = await Promise.allSettled([
        deps.mx.check(domain),
        // Registries know registrable domains only: `mail.example.co.uk` is asked as `example.co.uk`.
        deps.domainAge.ageDays(registrableDomain, deps.now()),
      ]);
      if (mx.status === 'fulfilled') signal.mx = mx.value;
      else {
        signal.mxError = lookupFailureOf(mx.reason);
        signal.dnsFailure = dnsFailureOfError(mx.reason);
      }
      if (age.status === 'fulfilled') {
        if (age.value !== null) signal.domainAgeDays = age.value;
      } else {
        signal.domainAgeError = lookupFailureOf(age.reason);
      }
      return signal;
    },
  };
}
