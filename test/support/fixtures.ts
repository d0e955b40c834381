// Builders: every test mints its own tenant, so tests share no data and need no cleanup.
import { randomBytes, randomUUID } from 'node:crypto';
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

// A client address of this test's own (with TRUST_PROXY=loopback, sent as X-Forwarded-For): a
// random /64 of the documentation prefix, so the per-IP rate-limit bucket of keyless requests is
// never one that an earlier test, or an earlier run in the same window, has filled.
export function aClientIp(): string {
  const group = () => randomBytes(2).toString('hex');
  return `2001:db8:${group()}:${group()}::1`;
}
