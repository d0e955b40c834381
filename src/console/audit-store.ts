// SQL for the console's audit log: every analyst action (sign-in, resolution, feedback, query
// run, redelivery, mode switch), newest first per tenant, readable by the tenant's admins.
import type { Queryable } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import { newId } from '../db/new-id.js';
import type { Analyst } from './auth/analyst-store.js';

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

export const actorOf = (s: { analyst: Analyst; scope: Scope }): Actor => ({
  tenantId: s.scope.tenantId, mode: s.scope.mode, analystId: s.analyst.id, analystEmail: s.analyst.email,
});

export async function audit(db: Queryable, actor: Actor, action: string, subject: string | null, detail: Record<string, unknown> = {}): Promise<void> {
  await db.query(
    `INSERT INTO console_audit (id, tenant_id, mode, analyst_id, analyst_email, action, subject, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [newId('aud'), actor.tenantId, actor.mode, actor.analystId, actor.analystEmail, action, subject, JSON.stringify(detail)],
  );
}

// Both modes: the log is about people, not about one mode's data. Keyset-paged on (at, id).
export async function listAudit(db: Queryable, tenantId: string, limit: number, before?: { at: Date; id: string }): Promise<{ entries: AuditEntry[]; more: boolean }> {
  const { rows } = await db.query<{ id: string; at: Date; mode: Scope['mode']; analyst_email: string; action: string; subject: string | null; detail: Record<string, unknown> }>(
    `SELECT id, at, mode, analyst_email, action, subject, detail FROM console_audit
      WHERE tenant_id = $1 AND ($3::timestamptz IS NULL OR (at, id) < ($3, $4))
      ORDER BY at DESC, id DESC LIMIT $2`,
    [tenantId, limit + 1, before?.at ?? null, before?.id ?? null],
  );
  return {
    entries: rows.slice(0, limit).map((r) => ({ id: r.id, at: r.at, mode: r.mode, analystEmail: r.analyst_email, action: r.action, subject: r.subject, detail: r.detail })),
    more: rows.length > limit,
  };
}

// One analyst's own entries of one action, newest first (their Cypher history).
export async function listOwnAudit(db: Queryable, tenantId: string, analystId: string, action: string, limit: number): Promise<AuditEntry[]> {
  const { rows } = await db.query<{ id: string; at: Date; mode: Scope['mode']; analyst_email: string; action: string; subject: string | null; detail: Record<string, unknown> }>(
    `SELECT id, at, mode, analyst_email, action, subject, detail FROM console_audit
      WHERE tenant_id = $1 AND analyst_id = $2 AND action = $3 ORDER BY at DESC LIMIT $4`,
    [tenantId, analystId, action, limit],
  );
  return rows.map((r) => ({ id: r.id, at: r.at, mode: r.mode, analystEmail: r.analyst_email, action: r.action, subject: r.subject, detail: r.detail }));
}
