// Why DNS gave no answer: a LookupError that also names the reason (the `reason` label of
// doorman_dns_lookup_failures_total), read from node:dns's error codes (c-ares's statuses) as Node 24
// and c-ares 1.34 return them (docs/email-signals.md, "MX": the table of what each case gives).
import { LookupError } from './lookup-error.js';

export type DnsFailure = 'timeout' | 'servfail' | 'refused' | 'unreachable' | 'tld_missing' | 'other';

// A timeout is `timeout` (timeout_failopen); every other reason is `unavailable` (partial_enrichment).
export class DnsLookupError extends LookupError {
  readonly reason: DnsFailure;

  constructor(reason: DnsFailure, message: string, options?: { cause?: unknown }) {
    super(reason === 'timeout' ? 'timeout' : 'unavailable', message, options);
    this.name = 'DnsLookupError';
    this.reason = reason;
  }
}

const REASONS = new Map<string, DnsFailure>([
  // c-ares's own timer (per try and per server); the checker's deadline gives `timeout` too.
  ['ETIMEOUT', 'timeout'],
  ['ESERVFAIL', 'servfail'],
  ['EREFUSED', 'refused'],
  // "Could not contact DNS servers": nothing listens (the ICMP port unreachable is seen at once),
  // or a resolv.conf without servers (c-ares then asks 127.0.0.1:53, where nothing may listen).
  ['ECONNREFUSED', 'unreachable'],
  // An empty server list: c-ares's ARES_ENOSERVER, which Node 24 does not name.
  ['UNKNOWN_ARES_ERROR', 'unreachable'],
]);

// EFORMERR, ENOTIMP, EBADRESP, ECANCELLED, EDESTRUCTION, ENOMEM and the rest are `other`.
export function dnsFailureOf(code: string): DnsFailure {
  return REASONS.get(code) ?? 'other';
}

// The reason of any rejection of an MX check: a failure we did not foresee is `other`.
export function dnsFailureOfError(error: unknown): DnsFailure {
  return error instanceof DnsLookupError ? error.reason : 'other';
}
