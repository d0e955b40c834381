// SQL for analyst accounts, their one-time sign-in links and their sessions. Tokens are stored
// as SHA-256 hashes only: a copy of the database opens no session and uses no link.
import type { Queryable } from '../../db/queryable.js';
import type { Role } from '../../roles.js';
import type { Scope } from '../../scope.js';

export interface Analyst {
  id: string;
  tenantId: string;
  email: string;
  role: Role;
  mode: Scope['mode'];
  hasPassword: boolean;
  createdAt: Date;
}

interface AnalystRow {
  id: string;
  tenant_id: string;
  email: string;
  role: Role;
  mode: Scope['mode'];
  has_password: boolean;
  created_at: Date;
}

const COLUMNS = 'a.id, a.tenant_id, a.email, a.role, a.mode, a.password_hash IS NOT NULL AS has_password, a.created_at';

const fromRow = (r: AnalystRow): Analyst => ({
  id: r.id,
  tenantId: r.tenant_id,
  email: r.email,
  role: r.role,
  mode: r.mode,
  hasPassword: r.has_password,
  createdAt: r.created_at,
});

// False when the email already has an account (in this tenant or another).
export async function insertAnalyst(db: Queryable, a: { id: string; tenantId: string; email: string; role: Role }): Promise<boolean> {
  const { rowCount } = await db.query('INSERT INTO analysts (id, tenant_id, email, role) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
    a.id,
    a.tenantId,
    a.email,
    a.role,
  ]);
  return rowCount === 1;
}

export async function findAnalystByEmail(db: Queryable, email: string): Promise<(Analyst & { passwordHash: string | null }) | undefined> {
  const { rows } = await db.query<AnalystRow & { password_hash: string | null }>(
    `SELECT ${COLUMNS}, a.password_hash FROM analysts a WHERE lower(a.email) = lower($1)`,
    [email],
  );
  const r = rows[0];
  return r && { ...fromRow(r), passwordHash: r.password_hash };
}

export async function findAnalystById(db: Queryable, id: string): Promise<Analyst | undefined> {
  const { rows } = await db.query<AnalystRow>(`SELECT ${COLUMNS} FROM analysts a WHERE a.id = $1`, [id]);
  return rows[0] && fromRow(rows[0]);
}

export async function listAnalysts(db: Queryable, tenantId: string): Promise<(Analyst & { lastSeenAt: Date | null })[]> {
  const { rows } = await db.query<AnalystRow & { last_seen_at: Date | null }>(
    `SELECT ${COLUMNS}, (SELECT max(s.last_seen_at) FROM analyst_sessions s WHERE s.analyst_id = a.id) AS last_seen_at
       FROM analysts a WHERE a.tenant_id = $1 ORDER BY a.created_at, a.id`,
    [tenantId],
  );
  return rows.map((r) => ({ ...fromRow(r), lastSeenAt: r.last_seen_at }));
}

// Removing an account ends its sessions and voids its links (ON DELETE CASCADE).
export async function deleteAnalyst(db: Queryable, tenantId: string, email: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM analysts WHERE tenant_id = $1 AND lower(email) = lower($2)', [tenantId, email]);
  return rowCount === 1;
}

export async function setPasswordHash(db: Queryable, analystId: string, hash: string): Promise<void> {
  await db.query('UPDATE analysts SET password_hash = $2 WHERE id = $1', [analystId, hash]);
}

export async function setAnalystMode(db: Queryable, analystId: string, mode: Scope['mode']): Promise<void> {
  await db.query('UPDATE analysts SET mode = $2 WHERE id = $1', [analystId, mode]);
}

export async function insertSignInLink(db: Queryable, l: { tokenHash: string; analystId: string; expiresAt: Date }): Promise<void> {
  await db.query('INSERT INTO analyst_sign_in_links (token_hash, analyst_id, expires_at) VALUES ($1, $2, $3)', [
    l.tokenHash,
    l.analystId,
    l.expiresAt,
  ]);
}

// Marks the link used, once: of two concurrent uses only one gets the analyst back.
export async function useSignInLink(db: Queryable, tokenHash: string, now: Date): Promise<string | undefined> {
  const { rows } = await db.query<{ analyst_id: string }>(
    `UPDATE analyst_sign_in_links SET used_at = $2
      WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING analyst_id`,
    [tokenHash, now],
  );
  return rows[0]?.analyst_id;
}

// A link that can still be used: unused and unexpired (nothing is changed).
export async function findUsableSignInLink(db: Queryable, tokenHash: string, now: Date): Promise<string | undefined> {
  const { rows } = await db.query<{ analyst_id: string }>(
    'SELECT analyst_id FROM analyst_sign_in_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2',
    [tokenHash, now],
  );
  return rows[0]?.analyst_id;
}

// The account's links not used yet are voided: a new link, or a password set, replaces them.
export async function voidSignInLinks(db: Queryable, analystId: string): Promise<void> {
  await db.query('DELETE FROM analyst_sign_in_links WHERE analyst_id = $1 AND used_at IS NULL', [analystId]);
}

// Every session of the account ends (a password was set through a link).
export async function deleteSessionsOf(db: Queryable, analystId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM analyst_sessions WHERE analyst_id = $1', [analystId]);
  return rowCount ?? 0;
}

export async function insertSession(
  db: Queryable,
  s: { tokenHash: string; analystId: string; csrfToken: string; now: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    'INSERT INTO analyst_sessions (token_hash, analyst_id, csrf_token, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $4, $5)',
    [s.tokenHash, s.analystId, s.csrfToken, s.now, s.expiresAt],
  );
}

export interface SessionRow {
  analyst: Analyst;
  tenantName: string;
  csrfToken: string;
  lastSeenAt: Date;
}

// The live session for a token (not idle for longer than idleMinutes, not past expires_at),
// with its analyst; one indexed round trip per console request.
export async function findSession(db: Queryable, tokenHash: string, now: Date, idleMinutes: number): Promise<SessionRow | undefined> {
  const { rows } = await db.query<AnalystRow & { tenant_name: string; csrf_token: string; last_seen_at: Date }>({
    name: 'console-find-session',
    text: `SELECT ${COLUMNS}, t.name AS tenant_name, s.csrf_token, s.last_seen_at
             FROM analyst_sessions s JOIN analysts a ON a.id = s.analyst_id JOIN tenants t ON t.id = a.tenant_id
            WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.last_seen_at > $2::timestamptz - make_interval(mins => $3)`,
    values: [tokenHash, now, idleMinutes],
  });
  const r = rows[0];
  return r && { analyst: fromRow(r), tenantName: r.tenant_name, csrfToken: r.csrf_token, lastSeenAt: r.last_seen_at };
}

export async function touchSession(db: Queryable, tokenHash: string, now: Date): Promise<void> {
  await db.query('UPDATE analyst_sessions SET last_seen_at = $2 WHERE token_hash = $1', [tokenHash, now]);
}

export async function deleteSession(db: Queryable, tokenHash: string): Promise<void> {
  await db.query('DELETE FROM analyst_sessions WHERE token_hash = $1', [tokenHash]);
}
