// What tells an honest group (a household, a family plan, a team) from a ring or a farm on the
// event itself, shared by the rules that judge groups (identity_cluster, cluster_confirmed_abuse).

// Risk on this event that no honest group explains: a disposable email, or a Tor, proxy or
// datacenter address. Its name, or undefined.
import type { Signals } from '../types.js';

export function eventRisk(s: Signals): string | undefined {
  if (s.email?.disposable) return 'disposable_email';
  if (s.ip?.torExit) return 'tor_exit';
  if (s.ip?.proxy) return 'proxy_ip';
  if (s.ip?.datacenter) return 'datacenter_ip';
  return undefined;
}

// The identifiers Doorman verifies itself: a normalised email, a device from a signed token, a
// card fingerprint. Everything else is a value the caller supplied.
export const VERIFIED_KINDS: ReadonlySet<string> = new Set(['email', 'device', 'card']);

// A company's own, established domain: not free-mail, not disposable, receiving mail, and
// registered at least this many days ago (RDAP). A domain of unknown age is not one: a fraudster's
// catch-all domain registered last week must not pass for an office.
export const ESTABLISHED_DOMAIN_DAYS = 365;

export function corporateEmail(s: Signals): boolean {
  const e = s.email;
  return (
    e !== undefined &&
    !e.freemail &&
    !e.disposable &&
    !e.malformed &&
    e.mx === 'ok' &&
    e.domainAgeDays !== undefined &&
    e.domainAgeDays >= ESTABLISHED_DOMAIN_DAYS
  );
}
