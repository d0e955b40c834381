// A reason code and its detail in an analyst's words, with its numbers: "7 signups from this IP
// in 1 h; the policy reviews above 5". The code itself stays beside the sentence (what the API
// and the policy say); unknown codes fall back to their detail as key=value.
import { plural, scalar, when } from './format';
import type { Reason } from './types';

const span = (seconds: unknown): string => {
  const s = Number(seconds);
  if (!Number.isFinite(s) || s <= 0) return '';
  if (s % 86_400 === 0) return ` in ${plural(s / 86_400, 'day')}`.replace(' in 1 day', ' in 24 h');
  if (s % 3_600 === 0) return ` in ${s / 3_600} h`;
  if (s % 60 === 0) return ` in ${s / 60} min`;
  return ` in ${s} s`;
};

// What the step that fired does: "reviews" or "blocks" (a rule's detail names it as rule=code.step).
const step = (d: Record<string, unknown>): string => (String(d.rule ?? '').endsWith('block_over') ? 'blocks' : 'reviews');

const KINDS: Record<string, string> = { email: 'email', device: 'device', card: 'card', phone: 'phone', ip: 'IP' };
const kinds = (v: unknown): string =>
  String(v ?? '')
    .split(',')
    .filter(Boolean)
    .map((k) => KINDS[k] ?? k)
    .join(' → ');

type Words = (d: Record<string, unknown>) => string;

const velocity =
  (what: string): Words =>
  (d) =>
    `${d.count} ${what}${span(d.window_seconds)}; ${d.group === 'team' ? `a team on its company's domain behind one address (informational; the policy reviews others above ${d.threshold})` : `the policy ${step(d)} above ${d.threshold}`}`;

const WORDS: Record<string, Words> = {
  blocklisted: (d) => `an identifier of this event is on the block list${d.kind ? ` (${d.kind})` : ''}`,
  allowlisted: (d) => `an identifier of this event is on the allow list${d.kind ? ` (${d.kind})` : ''}`,
  cluster_confirmed_abuse: (d) => {
    const via =
      d.via === undefined ? '' : d.via === '' ? 'this account itself was reported' : `linked to the reported subject via ${kinds(d.via)}`;
    const held =
      d.rule === 'cluster_confirmed_abuse.verified_only'
        ? '; held for review because the link is only through values the caller typed'
        : d.rule === 'cluster_confirmed_abuse.group'
          ? '; held for review, not blocked: a small group sharing a device or card, with nothing risky on this event'
          : '';
    return `its identity cluster was confirmed as abuse${d.marked_at ? ` on ${when(d.marked_at as string | number)}` : ''}${via ? `; ${via}` : ''}${held}`;
  },
  hub_confirmed_abuse: (d) => {
    const kind = KINDS[String(d.via)] ?? String(d.via);
    const then = d.marked_at ? ` (first reported ${when(d.marked_at as string | number)})` : '';
    const formed = Number(d.formed_seconds);
    const how =
      d.rule === 'hub_confirmed_abuse.place'
        ? '; informational: a value the caller typed that many used over time'
        : d.rule === 'hub_confirmed_abuse.farm'
          ? '; held for review, not blocked: not a verified identifier shared within a day'
          : '';
    return `this ${kind} is shared by ${plural(Number(d.hub_accounts), 'account')}, ${plural(Number(d.confirmed_accounts), 'confirmed abuser')} among them${then}; it became a hub${Number.isFinite(formed) ? span(formed) || ' at once' : ''}${how}`;
  },
  cluster_chargeback: (d) =>
    `${d.chargebacks ? plural(Number(d.chargebacks), 'chargeback') : 'a chargeback'} reported in its identity cluster`,
  cluster_trusted: (d) =>
    d.false_positive
      ? 'a false positive was reported in its identity cluster, so the cluster is trusted'
      : `the cluster converted a trial ${plural(Number(d.count), 'day')} ago with no abuse since (the policy trusts from ${d.threshold} days)`,
  identity_cluster: (d) => {
    const EVIDENCE: Record<string, string> = {
      disposable_email: 'a disposable email',
      tor_exit: 'a Tor exit',
      proxy_ip: 'a proxy',
      datacenter_ip: 'a data-centre address',
      shared_email: 'one email behind the accounts',
    };
    const why = d.rule
      ? `; the policy reviews at ${d.threshold} or more${d.evidence ? ` with ${EVIDENCE[String(d.evidence)] ?? d.evidence}` : ''}`
      : d.group === 'household'
        ? '; a household or family, with nothing risky on this event (informational)'
        : d.group === 'team'
          ? "; a team on its company's domain (informational)"
          : ` (informational below ${d.threshold})`;
    return `its identity cluster links ${plural(Number(d.linked_accounts), 'account')}${d.via_kinds ? ` via ${kinds(d.via_kinds)}` : ''}${d.window_seconds ? `, ${d.count} of them first seen${span(d.window_seconds)}` : ''}${why}`;
  },
  malformed_email: () => 'the email address is not a deliverable address',
  disposable_email: (d) => `the email is at a disposable provider${d.domain ? ` (${d.domain})` : ''}`,
  invalid_mx: (d) =>
    `the email's domain cannot receive mail (${d.mx === 'null_mx' ? 'it publishes a null MX' : 'no MX and no address record'})`,
  young_domain: (d) =>
    `the email's domain was registered ${plural(Number(d.age_days), 'day')} ago; the policy reviews under ${d.threshold} days`,
  tor_exit: () => 'the IP is a Tor exit',
  proxy_ip: () => 'the IP is a known proxy or VPN',
  datacenter_ip: () => 'the IP is in a hosting (data-centre) range',
  velocity_ip_signups: velocity('signups from this IP'),
  velocity_device_signups: velocity('signups from this device'),
  velocity_domain_signups: velocity('signups from this email domain'),
  velocity_card_attempts: velocity('checkout attempts with this card'),
  velocity_ip_card_attempts: velocity('distinct cards from this IP'),
  velocity_distinct_cards: velocity('distinct cards in the cluster'),
  velocity_card_countries: velocity('card countries in the cluster'),
  velocity_cluster_trials: (d) =>
    `the cluster started a trial ${plural(Number(d.days_since_last_trial), 'day')} ago; the policy blocks another within ${d.threshold} days`,
  card_probe_pattern: (d) =>
    `${d.attempts_10m} checkout attempts of at most ${d.max_amount} minor units${span(d.window_seconds)} on one card or IP (card testing); the policy blocks at ${d.threshold}`,
  prepaid_card: () => 'the card is prepaid',
  ato_new_device: () => 'a login to an account with history from a device never seen for it',
  ato_account_device_burst: (d) =>
    `${d.devices} distinct devices logged into this account${span(d.window_seconds)}; the policy holds above ${d.threshold}`,
  timeout_failopen: (d) => `decided without ${d.sources ?? 'a signal'}: it ran past its time budget`,
  partial_enrichment: (d) => `decided without ${d.sources ?? 'a signal'}: it was unavailable`,
  test_fixture: (d) => `a test-mode fixture forced the outcome ${d.outcome}`,
};

export function reasonWords(r: Reason): string {
  const d = r.detail ?? {};
  const words = WORDS[r.code];
  if (words) {
    try {
      return words(d);
    } catch {
      // falls through to the raw detail
    }
  }
  const raw = Object.entries(d)
    .map(([k, v]) => `${k}=${scalar(v)}`)
    .join(' ');
  return raw || r.code.replace(/_/g, ' ');
}
