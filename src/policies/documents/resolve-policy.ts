// Finding a policy by version for a scope: the scope's publications, then the shipped ones. Used
// by replay, explain, backtest and shadow; a version that names nothing is not_found.
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import type { Policy } from '../../engine/policy.js';
import { AppError } from '../../errors.js';
import { fromDocument, toDocument, type PolicyDocument } from './policy-document.js';
import { findPolicyVersion } from './policy-store.js';
import { shippedPolicy } from './shipped-policies.js';

export interface ResolvedPolicy {
  policy: Policy;
  document: PolicyDocument;
  source: 'published' | 'shipped';
}

export async function resolvePolicy(db: Queryable, scope: Scope, version: string): Promise<ResolvedPolicy> {
  const published = await findPolicyVersion(db, scope, version);
  if (published) return { policy: fromDocument(published.document, version), document: published.document, source: 'published' };
  const shipped = shippedPolicy(version);
  if (shipped) return { policy: shipped, document: toDocument(shipped), source: 'shipped' };
  throw new AppError('not_found', `No policy version ${version} for this tenant and mode.`);
}

// Resolving many events' versions: each version is read once.
export function policyCache(db: Queryable, scope: Scope): (version: string) => Promise<Policy> {
  const cache = new Map<string, Promise<Policy>>();
  return (version) => {
    let hit = cache.get(version);
    if (!hit) cache.set(version, (hit = resolvePolicy(db, scope, version).then((r) => r.policy)));
    return hit;
  };
}
