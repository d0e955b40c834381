// Builders: every test mints its own tenant, so tests share no data and need no cleanup.
import { randomBytes, randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import type { Deps } from '../../src/deps.js';
import { createTenant, type TenantKeys } from '../../src/tenants/manage-tenants.js';
import { noteGraphScope } from './graph-scopes.js';

export interface TestTenant {
  tenantId: string;
  keys: TenantKeys;
}

export async function aTenant(deps: Deps, name = `test-${randomUUID().slice(0, 8)}`): Promise<TestTenant> {
  const tenant = await createTenant(deps.db, name);
  // The suite's last stage verifies this tenant's graph with the hub threshold it ran with.
  if (deps.config.hubThreshold !== DEFAULT_HUB_THRESHOLD)
    await noteGraphScope(deps.db, tenant.tenantId, { hubThreshold: deps.config.hubThreshold });
  return tenant;
}

const DEFAULT_HUB_THRESHOLD = loadConfig({ DATABASE_URL: 'postgres://localhost/doorman' }).hubThreshold;

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

// A client address of this test's own (with TRUST_PROXY=loopback, sent as X-Forwarded-For): a
// random /64 of the documentation prefix, so the per-IP rate-limit bucket of keyless requests is
// never one that an earlier test, or an earlier run in the same window, has filled.
export function aClientIp(): string {
  const group = () => randomBytes(2).toString('hex');
  return `2001:db8:${group()}:${group()}::1`;
}
