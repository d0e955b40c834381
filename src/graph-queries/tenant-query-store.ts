// SQL of tenant_queries (a tenant's own saved Cypher) and graph_query_settings (who may run
// free-form Cypher in the tenant).
import type { Queryable } from '../db/queryable.js';
import type { Role } from '../roles.js';

export interface TenantQuery {
  id: string;
  description: string;
  cypher: string;
  parameters: string[];
  createdBy: string;
  createdAt: Date;
}

const COLUMNS = 'id, description, cypher, parameters, created_by, created_at';
type Row = { id: string; description: string; cypher: string; parameters: string[]; created_by: string; created_at: Date };
const fromRow = (r: Row): TenantQuery => ({
  id: r.id,
  description: r.description,
  cypher: r.cypher,
  parameters: r.parameters,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

export async function listTenantQueries(db: Queryable, tenantId: string): Promise<TenantQuery[]> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM tenant_queries WHERE tenant_id = $1 ORDER BY id`, [tenantId]);
  return rows.map(fromRow);
}

export async function findTenantQuery(db: Queryable, tenantId: string, id: string): Promise<TenantQuery | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM tenant_queries WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  return rows[0] && fromRow(rows[0]);
}

// False when the tenant already has a query of that id.
export async function insertTenantQuery(db: Queryable, tenantId: string, q: Omit<TenantQuery, 'createdAt'>): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO tenant_queries (tenant_id, id, description, cypher, parameters, created_by)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [tenantId, q.id, q.description, q.cypher, q.parameters, q.createdBy],
  );
  return rowCount === 1;
}

export async function deleteTenantQuery(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM tenant_queries WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  return rowCount === 1;
}

// Admins unless the tenant chose otherwise.
export async function freeFormRoles(db: Queryable, tenantId: string): Promise<Role> {
  const { rows } = await db.query<{ free_form_roles: Role }>('SELECT free_form_roles FROM graph_query_settings WHERE tenant_id = $1', [
    tenantId,
  ]);
  return rows[0]?.free_form_roles ?? 'admin';
}

export async function setFreeFormRoles(db: Queryable, tenantId: string, roles: Role, by: string): Promise<void> {
  await db.query(
    `INSERT INTO graph_query_settings (tenant_id, free_form_roles, updated_by) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id) DO UPDATE SET free_form_roles = EXCLUDED.free_form_roles, updated_by = EXCLUDED.updated_by, updated_at = now()`,
    [tenantId, roles, by],
  );
}
