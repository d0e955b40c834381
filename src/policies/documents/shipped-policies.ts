// The policies shipped with the code, by version: the default every tenant has until it
// publishes its own. When the default changes, add the new one here and keep the old: stored
// events name the version that judged them, and replay looks it up.
import { defaultPolicy, defaultPolicy20261122, type Policy } from '../../engine/policy.js';

export const SHIPPED_POLICIES: readonly Policy[] = [defaultPolicy20261122, defaultPolicy];

export function shippedPolicy(version: string): Policy | undefined {
  return SHIPPED_POLICIES.find((p) => p.version === version);
}
