// An audit entry's subject and detail as an admin reads them: the detail's keys and values as
// pairs (nested ones nested, times in UTC, events, accounts and emails linked), the subject linked
// to what it names. Text only: a detail holds what analysts and callers typed (notes, Cypher).
import { queryHref } from './links';
import { Fields, TypedValue } from './typed-value';
import type { AuditPage } from './types';

type Entry = AuditPage['entries'][number];

// The saved query a run, a save or a free-form run of a saved query names; a run's link carries
// its parameters, so it shows what the analyst saw.
const QUERY_ACTIONS = new Set(['query.run', 'query.save', 'cypher.run']);

export function AuditSubject({ entry }: { entry: Entry }) {
  const s = entry.subject;
  if (s === null) return <span class="muted">–</span>;
  if (QUERY_ACTIONS.has(entry.action)) {
    const params = entry.action === 'query.run' ? stringParams(entry.detail.params) : {};
    return <a href={queryHref(s, params)}>{s}</a>;
  }
  // A feedback's subject is kind:value; a review's is its event id.
  return <TypedValue name="subject" value={s} source="audit" />;
}

export function AuditDetail({ entry }: { entry: Entry }) {
  if (Object.keys(entry.detail).length === 0) return <span class="muted">–</span>;
  return <Fields value={entry.detail} source="audit" />;
}

const stringParams = (v: unknown): Record<string, string> =>
  v && typeof v === 'object'
    ? Object.fromEntries(Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => (typeof x === 'string' ? [[k, x]] : [])))
    : {};
