// SQL for published policy versions (immutable, kept for ever) and the shadow of each scope.
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import type { PolicyDocument } from './policy-document.js';

export interface PublishedVersion {
  tenantId: string;
  mode: 'live' | 'test';
  version: string;
  document: PolicyDocument;
  note?: string;
  publishedAt: Date;
}

interface Row {
  tenant_id: string;
  mode: 'live' | 'test';
  policy_version: string;
  document: PolicyDocument;
  note: string | null;
  published_at: Date;
}

const fromRow = (r: Row): PublishedVersion => ({
  tenantId: r.tenant_id,
  mode: r.mode,
  version: r.policy_version,
  document: r.document,
  note: r.note ?? undefined,
  publishedAt: r.published_at,
});

const COLUMNS = 'tenant_id, mode, policy_version, document, note, published_at';

// Serialises the publications of one scope until the caller's transaction ends.
export async function lockScopePublications(tx: Queryable, scope: Scope): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('policy:' || $1 || ':' || $2, 0))`, [scope.tenantId, scope.mode]);
}

// The highest n of the scope's versions <day>.<n>, 0 when none.
export async function highestNumberOfDay(tx: Queryable, scope: Scope, day: string): Promise<number> {
  const { rows } = await tx.query<{ n: number | null }>(
    `SELECT max(split_part(policy_version, '.', 2)::int) AS n FROM policy_versions
      WHERE tenant_id = $1 AND mode = $2 AND split_part(policy_version, '.', 1) = $3`,
    [scope.tenantId, scope.mode, day],
  );
  return rows[0]?.n ?? 0;
}

export async function insertPolicyVersion(
  tx: Queryable,
  scope: Scope,
  version: string,
  document: PolicyDocument,
  note?: string,
): Promise<void> {
  await tx.query('INSERT INTO policy_versions (tenant_id, mode, policy_version, document, note) VALUES ($1, $2, $3, $4, $5)', [
    scope.tenantId,
    scope.mode,
    version,
    JSON.stringify(document),
    note ?? null,
  ]);
}

export async function findPolicyVersion(db: Queryable, scope: Scope, version: string): Promise<PublishedVersion | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM policy_versions WHERE tenant_id = $1 AND mode = $2 AND policy_version = $3`,
    [scope.tenantId, scope.mode, version],
  );
  return rows[0] && fromRow(rows[0]);
}

// Newest first.
export async function listPolicyVersions(db: Queryable, scope: Scope): Promise<PublishedVersion[]> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM policy_versions WHERE tenant_id = $1 AND mode = $2 ORDER BY seq DESC`, [
    scope.tenantId,
    scope.mode,
  ]);
  return rows.map(fromRow);
}

// The version in force per scope (its newest publication), for one scope or all of them.
// A fragment for a statement that must not commit under a superseded policy (the verdict's write,
// src/verdicts/verdict-store.ts): one row when the scope has a publication later than `version`
// (the shipped default, never a published version, is superseded by any publication). A null
// version finds none. The caller names its parameters.
export function supersededPolicySql(p: { tenantId: string; mode: string; version: string }): string {
  return `SELECT 1 AS superseded FROM policy_versions p
   WHERE ${p.version}::text IS NOT NULL AND p.tenant_id = ${p.tenantId} AND p.mode = ${p.mode}
     AND p.seq > coalesce((SELECT u.seq FROM policy_versions u WHERE u.tenant_id = ${p.tenantId} AND u.mode = ${p.mode} AND u.policy_version = ${p.version}), 0)
   LIMIT 1`;
}

// Whether a publication of the scope is later than `version` (supersededPolicySql, on its own).
export async function isSuperseded(db: Queryable, scope: Scope, version: string): Promise<boolean> {
  const { rows } = await db.query(supersededPolicySql({ tenantId: '$1', mode: '$2', version: '$3' }), [
    scope.tenantId,
    scope.mode,
    version,
  ]);
  return rows.length > 0;
}

export async function versionsInForce(db: Queryable, scope?: Scope): Promise<PublishedVersion[]> {
  const { rows } = await db.query<Row>(
    `SELECT DISTINCT ON (tenant_id, mode) ${COLUMNS} FROM policy_versions
      WHERE ($1::text IS NULL OR (tenant_id = $1 AND mode = $2))
      ORDER BY tenant_id, mode, seq DESC`,
    [scope?.tenantId ?? null, scope?.mode ?? null],
  );
  return rows.map(fromRow);
}

// The shadow of each scope (or of one), with its document.
export async function shadowsInForce(db: Queryable, scope?: Scope): Promise<PublishedVersion[]> {
  const { rows } = await db.query<Row>(
    `SELECT v.tenant_id, v.mode, v.policy_version, v.document, v.note, v.published_at
       FROM policy_shadows s JOIN policy_versions v USING (tenant_id, mode, policy_version)
      WHERE ($1::text IS NULL OR (s.tenant_id = $1 AND s.mode = $2))`,
    [scope?.tenantId ?? null, scope?.mode ?? null],
  );
  return rows.map(fromRow);
}

export async function setShadowVersion(db: Queryable, scope: Scope, version: string): Promise<void> {
  await db.query(
    `INSERT INTO policy_shadows (tenant_id, mode, policy_version) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id, mode) DO UPDATE SET policy_version = EXCLUDED.policy_version, set_at = now()`,
    [scope.tenantId, scope.mode, version],
  );
}

export async function clearShadowVersion(db: Queryable, scope: Scope): Promise<void> {
  await db.query('DELETE FROM policy_shadows WHERE tenant_id = $1 AND mode = $2', [scope.tenantId, scope.mode]);
}
