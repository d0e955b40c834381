// How times, ages and values read in the console.
import { useLayoutEffect } from 'preact/hooks';

export function age(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
  return `${Math.floor(seconds / 86400)}d ${Math.floor((seconds % 86400) / 3600)}h`;
}

export const ageSince = (iso: string | number | null | undefined): string =>
  iso === null || iso === undefined ? '–' : age(Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000)));

export function when(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} UTC`;
}

export const scalar = (v: unknown): string => (v === null || v === undefined ? '–' : typeof v === 'object' ? JSON.stringify(v) : String(v));

// "1 account", "3 accounts"; irregular plurals are given.
export const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

// The search forms' time inputs are UTC, labelled so, and read and shown as "2026-11-24 09:30"
// (09:30 UTC whatever the browser's zone or locale; a T in place of the space, seconds, or a date
// alone, its midnight, and the ISO form of the URL are read too). To an ISO instant, and back for the input's value.
const UTC_INPUT = /^(\d{4}-\d\d-\d\d)(?:[ T](\d\d:\d\d)(:\d\d(?:\.\d{1,3})?)?)?(?: ?UTC| ?Z)?$/i;
export const utcInputToIso = (v: string): string | undefined => {
  const m = UTC_INPUT.exec(v.trim());
  if (!m) return undefined;
  const d = new Date(`${m[1]}T${m[2] ?? '00:00'}${m[3] ?? ':00'}Z`);
  // A date that rolls over (2026-02-30) is not the one typed.
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== m[1] ? undefined : d.toISOString();
};
export const isoToUtcInput = (iso: string | null | undefined): string => {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)}`;
};

// Every page names itself in the tab: "Review queue · Doorman".
export const setTitle = (page: string): void => {
  document.title = `${page} · Doorman`;
};

// A page names itself in the same commit that draws it, before the browser paints, so the tab never
// shows the page under an older name (an effect would run a frame later).
export const useTitle = (page: string | null): void => {
  useLayoutEffect(() => {
    if (page !== null) setTitle(page);
  }, [page]);
};

// The currencies this browser knows (Intl's list, where it has one).
const KNOWN_CURRENCIES: ReadonlySet<string> | null = (() => {
  const list = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  return list ? new Set(list('currency')) : null;
})();

// The decimals of a currency's minor unit (USD 2, JPY 0, KWD 3), as Intl knows them; undefined for
// a code it does not know (Intl would guess 2) or cannot take.
function minorDigits(code: string): number | undefined {
  if (!/^[A-Z]{3}$/.test(code) || (KNOWN_CURRENCIES && !KNOWN_CURRENCIES.has(code))) return undefined;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits;
  } catch {
    return undefined;
  }
}

// An amount as the contract carries it (an integer of minor units, the currency's ISO 4217 code in
// any case) in the currency's own units: money(9900, 'usd') is "99.00 USD", money(500, 'JPY')
// "500 JPY", money(1234, 'kwd') "1.234 KWD". The digits are split off the integer, never divided,
// so no rounding shows. A currency it does not know, or no currency, leaves the minor units as given.
export function money(amount: unknown, currency: unknown): string {
  const code = typeof currency === 'string' ? currency.trim().toUpperCase() : '';
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) return scalar(amount);
  if (!code) return `${amount.toLocaleString('en')} minor units (no currency given)`;
  const digits = minorDigits(code);
  if (digits === undefined) return `${amount.toLocaleString('en')} minor units of ${code}`;
  const unit = 10 ** digits;
  const whole = (amount - (amount % unit)) / unit;
  const part = String(amount % unit).padStart(digits, '0');
  return `${whole.toLocaleString('en')}${digits > 0 ? `.${part}` : ''} ${code}`;
}

// A column or key named for a time: at, time, timestamp, …At, …_at, also as the last name of an
// expression (a Cypher column l.firstSeenAt, min(l.firstSeenAt)).
export const timeNamed = (key: string): boolean => {
  const last = /([A-Za-z_]\w*)\W*$/.exec(key)?.[1] ?? '';
  return /^(at|time|timestamp)$|[a-z0-9]At$|_at$|[a-z0-9]Time$|_time$|[a-z0-9]Timestamp$|_timestamp$/.test(last);
};

const EPOCH_MS = (n: number) => Number.isFinite(n) && n > 946_684_800_000 && n < 4_102_444_800_000;
// An ISO date or instant as Postgres and Neo4j write them (Neo4j may add a [zone] name); one
// without an offset is UTC, as every time the console shows.
const ISO = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?)(Z|[+-]\d\d(?::?\d\d)?)?)?(?:\[[^\]]+\])?$/;

// The instant (epoch ms) a value is, when its name says it is a time: epoch milliseconds (a number,
// or its digits as text) between 2000 and 2100, or an ISO date or instant.
export function timeOf(key: string, v: unknown): number | undefined {
  if (!timeNamed(key)) return undefined;
  if (typeof v === 'number') return EPOCH_MS(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  if (/^\d{12,13}$/.test(v)) return EPOCH_MS(Number(v)) ? Number(v) : undefined;
  const m = ISO.exec(v);
  if (!m) return undefined;
  const [, day, time, zone] = m;
  const offset =
    !zone || zone === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const t = Date.parse(time ? `${day}T${time}${offset}` : `${day}T00:00:00Z`);
  return Number.isNaN(t) ? undefined : t;
}

export const looksLikeTime = (key: string, v: unknown): boolean => timeOf(key, v) !== undefined;
