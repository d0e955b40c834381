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

// Numbers a query returns that are times (epoch milliseconds in a column or key named like one).
export const looksLikeTime = (key: string, v: unknown): v is number =>
  typeof v === 'number' && /(^at$|At$|_at$|^time$|[Tt]imestamp)/.test(key) && v > 946_684_800_000 && v < 4_102_444_800_000;
