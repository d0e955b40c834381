// The policy in force for each scope, and its shadow, held in memory so the verdict path looks
// them up synchronously (forScope, shadowFor). Loaded at warm-up; a publication or a shadow
// change NOTIFYs every instance, which reloads that scope; a (re)connected listener reloads all,
// so nothing missed while disconnected stays stale. A scope with no publication gets the
// shipped default.
import type { Logger } from 'pino';
import type { Queryable, Scope } from '../db/queryable.js';
import { listen, notify } from '../db/listen.js';
import { defaultPolicy, type Policy } from '../engine/policy.js';
import { fromDocument } from './policy-document.js';
import { shadowsInForce, versionsInForce, type PublishedVersion } from './policy-store.js';

export const POLICY_CHANNEL = 'doorman_policy_changed';

export interface PolicyRegistry {
  forScope(scope: Scope): Policy;
  shadowFor(scope: Scope): Policy | undefined;
  // Reads every scope's versions (warm-up, reconnect).
  load(): Promise<void>;
  // Reads one scope's versions (a NOTIFY about it).
  refresh(scope: Scope): Promise<void>;
}

const keyOf = (tenantId: string, mode: string) => `${tenantId}:${mode}`;

export function createPolicyRegistry(db: Queryable, fallback: Policy = defaultPolicy): PolicyRegistry {
  let live = new Map<string, Policy>();
  let shadows = new Map<string, Policy>();
  // Published documents never change: compile each version once.
  const compiled = new Map<string, Policy>();
  const compile = (v: PublishedVersion) => {
    const key = `${keyOf(v.tenantId, v.mode)}:${v.version}`;
    let policy = compiled.get(key);
    if (!policy) compiled.set(key, (policy = fromDocument(v.document, v.version)));
    return policy;
  };
  // A later read wins over an earlier one that answers late (two publications in a row).
  let generation = 0;
  const scopeGeneration = new Map<string, number>();

  return {
    forScope: (scope) => live.get(keyOf(scope.tenantId, scope.mode)) ?? fallback,
    shadowFor: (scope) => shadows.get(keyOf(scope.tenantId, scope.mode)),
    async load() {
      const started = ++generation;
      const [versions, shadowRows] = await Promise.all([versionsInForce(db), shadowsInForce(db)]);
      if (started !== generation) return;
      live = new Map(versions.map((v) => [keyOf(v.tenantId, v.mode), compile(v)]));
      shadows = new Map(shadowRows.map((v) => [keyOf(v.tenantId, v.mode), compile(v)]));
    },
    async refresh(scope) {
      const key = keyOf(scope.tenantId, scope.mode);
      const started = ++generation;
      scopeGeneration.set(key, started);
      const [versions, shadowRows] = await Promise.all([versionsInForce(db, scope), shadowsInForce(db, scope)]);
      if (scopeGeneration.get(key) !== started) return;
      const [current] = versions;
      const [shadow] = shadowRows;
      if (current) live.set(key, compile(current));
      else live.delete(key);
      if (shadow) shadows.set(key, compile(shadow));
      else shadows.delete(key);
    },
  };
}

// Keeps a registry current on this instance until closed.
export function watchPolicies(deps: { config: { databaseUrl: string }; policies: PolicyRegistry; logger: Logger }): { close(): Promise<void> } {
  const failed = (err: Error) => deps.logger.error({ err: err.message }, 'policy reload failed; the previous policies stay in force');
  return listen(
    deps.config.databaseUrl,
    POLICY_CHANNEL,
    (payload) => {
      let scope: Scope;
      try {
        const { tenant_id: tenantId, mode } = JSON.parse(payload) as { tenant_id: string; mode: 'live' | 'test' };
        scope = { tenantId, mode };
      } catch {
        // Not ours to understand: reload everything rather than guess.
        void deps.policies.load().catch(failed);
        return;
      }
      deps.policies.refresh(scope).catch(failed);
    },
    deps.logger,
    () => void deps.policies.load().catch(failed),
  );
}

// Sent inside the publishing transaction: Postgres delivers it on commit, never for a rollback.
export async function announcePolicyChange(tx: Queryable, scope: Scope): Promise<void> {
  await notify(tx, POLICY_CHANNEL, JSON.stringify({ tenant_id: scope.tenantId, mode: scope.mode }));
}
