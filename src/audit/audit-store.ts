// SQL for the audit log: every person's action (an analyst's sign-in, resolution, feedback, query
// run, redelivery or mode switch; an operator's at the CLI), newest first per tenant, readable by
// the tenant's admins. A service shared from below: the console, feedback, reviews, graph queries
// and lifecycle write it; the console reads it.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import { newId } from '../db/new-id.js';

export interface AuditEntry {
  id: string;
  at: Date;
  mode: Scope['mode'];
  analystEmail: string;
  action: string;
  subject: string | null;
  detail: Record<string, unknown>;
}

// Who acted, in which tenant and mode: an analyst, or an operator at the CLI (no analyst id).
export interface Actor {
  tenantId: string;
  mode: Scope['mode'];
  analystId: string | null;
  analystEmail: string;
}

export const actorOf = (s: { analyst: { id: string; email: string }; scope: Scope }): Actor => ({
  tenantId: s.scope.tenantId,
  mode: s.scope.mode,
  analystId: s.analyst.id,
  analystEmail: s.analyst.email,
});

export async function audit(
  db: Queryable,
  actor: Actor,
  action: string,
  subject: string | null,
  detail: Record<string, unknown> = {},
): Promise<string> {
  const id = newId('aud');
  await db.query(
    `INSERT INTO console_audit (id, tenant_id, mode, analyst_id, analyst_email, action, subject, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, actor.tenantId, actor.mode, actor.analystId, actor.analystEmail, action, subject, JSON.stringify(storable(detail))],
  );
  return id;
}

// Adds what became of an action to its entry (an analyst's query: its rows or its error, after
// the entry was written before it ran).
export async function completeAudit(db: Queryable, id: string, outcome: Record<string, unknown>): Promise<void> {
  await db.query('UPDATE console_audit SET detail = detail || $2::jsonb WHERE id = $1', [id, JSON.stringify(storable(outcome))]);
}

// Postgres stores no NUL in text or JSON, and no half of a surrogate pair in JSON: an entry must
// never fail on what an analyst typed. A field holding either is stored escaped, losslessly:
// {"$escaped": text with \ as \\, NUL as \0 and a lone surrogate as \uXXXX, "$type": "string"
// or "json"}; readers get the value back with readable().
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hasUnstorable(v: unknown): boolean {
  if (typeof v === 'string') return UNSTORABLE.test(v);
  if (Array.isArray(v)) return v.some(hasUnstorable);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => UNSTORABLE.test(k) || hasUnstorable(x));
  return false;
}

const escapeText = (s: string) =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/\u0000/g, '\\0')
    .replace(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
const unescapeText = (s: string) =>
  s.replace(/\\(\\|0|u[0-9a-f]{4})/g, (_, e: string) =>
    e === '\\' ? '\\' : e === '0' ? '\u0000' : String.fromCharCode(parseInt(e.slice(1), 16)),
  );

export function storable(detail: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(detail).map(([k, v]) => {
      if (!hasUnstorable(v)) return [k, v];
      return [
        k,
        typeof v === 'string' ? { $escaped: escapeText(v), $type: 'string' } : { $escaped: escapeText(JSON.stringify(v)), $type: 'json' },
      ];
    }),
  );
}

export function readable(detail: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(detail).map(([k, v]) => {
      const e = v as { $escaped?: unknown; $type?: unknown } | null;
      if (!e || typeof e !== 'object' || typeof e.$escaped !== 'string') return [k, v];
      const text = unescapeText(e.$escaped);
      return [k, e.$type === 'json' ? JSON.parse(text) : text];
    }),
  );
}

// Both modes: the log is about people, not about one mode's data. Keyset-paged on (at, id).
export async function listAudit(
  db: Queryable,
  tenantId: string,
  limit: number,
  before?: { at: Date; id: string },
): Promise<{ entries: AuditEntry[]; more: boolean }> {
  const { rows } = await db.query<{
    id: string;
    at: Date;
    mode: Scope['mode'];
    analyst_email: string;
    action: string;
    subject: string | null;
    detail: Record<string, unknown>;
  }>(
    `SELECT id, at, mode, analyst_email, action, subject, detail FROM console_audit
      WHERE tenant_id = $1 AND ($3::timestamptz IS NULL OR (at, id) < ($3, $4))
      ORDER BY at DESC, id DESC LIMIT $2`,
    [tenantId, limit + 1, before?.at ?? null, before?.id ?? null],
  );
  return {
    entries: rows.slice(0, limit).map((r) => ({
      id: r.id,
      at: r.at,
      mode: r.mode,
      analystEmail: r.analyst_email,
      action: r.action,
      subject: r.subject,
      detail: readable(r.detail),
    })),
    more: rows.length > limit,
  };
}

// One analyst's own entries of one action, newest first (their Cypher history).
export async function listOwnAudit(
  db: Queryable,
  tenantId: string,
  analystId: string,
  action: string,
  limit: number,
): Promise<AuditEntry[]> {
  const { rows } = await db.query<{
    id: string;
    at: Date;
    mode: Scope['mode'];
    analyst_email: string;
    action: string;
    subject: string | null;
    detail: Record<string, unknown>;
  }>(
    `SELECT id, at, mode, analyst_email, action, subject, detail FROM console_audit
      WHERE tenant_id = $1 AND analyst_id = $2 AND action = $3 ORDER BY at DESC LIMIT $4`,
    [tenantId, analystId, action, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    mode: r.mode,
    analystEmail: r.analyst_email,
    action: r.action,
    subject: r.subject,
    detail: readable(r.detail),
  }));
}
