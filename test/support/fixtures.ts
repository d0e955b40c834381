// Builders: every test mints its own tenant, so tests share no data and need no cleanup.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../src/deps.js';
import { createTenant, type TenantKeys } from '../../src/tenants/manage-tenants.js';

export interface TestTenant {
  tenantId: string;
  keys: TenantKeys;
}

export async function aTenant(deps: Deps, name = `test-${randomUUID().slice(0, 8)}`): Promise<TestTenant> {
  return createTenant(deps.db, name);
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
