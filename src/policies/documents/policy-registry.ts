// The policy in force for each scope, and its shadow, held in memory so the verdict path looks
// them up synchronously (forScope, shadowFor). Loaded at warm-up; a publication or a shadow
// change NOTIFYs every instance, which reloads that scope; a (re)connected listener reloads all,
// so nothing missed while disconnected stays stale. The registry answers synchronously and has
// no Postgres fallback, so while the listener cannot prove itself (db/listen.ts) it reads every
// policy again at each reconnection attempt: a publication is then late by the retry (5 s at
// most) rather than by the outage. A scope with no publication gets the shipped default.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import { listen, notify } from '../../db/listen.js';
import { defaultPolicy, type Policy } from '../../engine/policy.js';
import { fromDocument } from './policy-document.js';
import { shadowsInForce, versionsInForce, type PublishedVersion } from './policy-store.js';

export const POLICY_CHANNEL = 'doorman_policy_changed';

export interface PolicyRegistry {
  // From memory, as last read (whether or not it can prove it is current).
  forScope(scope: Scope): Policy;
  // The policy in force: from memory while its announcements connection proves it current
  // (watchPolicies), otherwise read from Postgres first (a process that has lost its connection
  // must not link under a link policy published over meanwhile: the graph would keep those
  // links); from memory as last read if Postgres cannot answer either.
  inForce(scope: Scope): Promise<Policy>;
  // What proves the memory current (the watcher's listener); always, until one is set.
  trustWhile(proven: () => boolean): void;
  shadowFor(scope: Scope): Policy | undefined;
  // Reads every scope's versions (warm-up, reconnect).
  load(): Promise<void>;
  // Reads one scope's versions (a NOTIFY about it).
  refresh(scope: Scope): Promise<void>;
}

const keyOf = (tenantId: string, mode: string) => `${tenantId}:${mode}`;

export function createPolicyRegistry(db: Queryable, fallback: Policy = defaultPolicy): PolicyRegistry {
  const live = new Map<string, Policy>();
  const shadows = new Map<string, Policy>();
  // Published documents never change: compile each version once.
  const compiled = new Map<string, Policy>();
  const compile = (v: PublishedVersion) => {
    const key = `${keyOf(v.tenantId, v.mode)}:${v.version}`;
    let policy = compiled.get(key);
    if (!policy) compiled.set(key, (policy = fromDocument(v.document, v.version)));
    return policy;
  };
  // Every read takes a ticket when it starts; a scope keeps the answer of the latest-started read
  // that reached it, so a slow read never undoes a newer one (two publications in a row, or a
  // publication during a full load).
  let tickets = 0;
  const appliedTicket = new Map<string, number>();
  const apply = (key: string, ticket: number, current: Policy | undefined, shadow: Policy | undefined) => {
    if ((appliedTicket.get(key) ?? 0) > ticket) return;
    appliedTicket.set(key, ticket);
    if (current) live.set(key, current);
    else live.delete(key);
    if (shadow) shadows.set(key, shadow);
    else shadows.delete(key);
  };

  let proven: () => boolean = () => true;
  const forScope = (scope: Scope) => live.get(keyOf(scope.tenantId, scope.mode)) ?? fallback;
  const refresh = async (scope: Scope) => {
    const ticket = ++tickets;
    const [versions, shadowRows] = await Promise.all([versionsInForce(db, scope), shadowsInForce(db, scope)]);
    apply(keyOf(scope.tenantId, scope.mode), ticket, versions[0] && compile(versions[0]), shadowRows[0] && compile(shadowRows[0]));
  };
  return {
    forScope,
    async inForce(scope) {
      if (!proven()) await refresh(scope).catch(() => undefined);
      return forScope(scope);
    },
    trustWhile(p) {
      proven = p;
    },
    shadowFor: (scope) => shadows.get(keyOf(scope.tenantId, scope.mode)),
    async load() {
      const ticket = ++tickets;
      const [versions, shadowRows] = await Promise.all([versionsInForce(db), shadowsInForce(db)]);
      const current = new Map(versions.map((v) => [keyOf(v.tenantId, v.mode), compile(v)]));
      const shadow = new Map(shadowRows.map((v) => [keyOf(v.tenantId, v.mode), compile(v)]));
      const keys = new Set([...live.keys(), ...shadows.keys(), ...current.keys(), ...shadow.keys()]);
      for (const key of keys) apply(key, ticket, current.get(key), shadow.get(key));
    },
    refresh,
  };
}

// Keeps a registry current on this instance until closed.
export function watchPolicies(deps: {
  config: Pick<Config, 'databaseDirectUrl' | 'memoryStalenessMs'>;
  policies: PolicyRegistry;
  logger: Logger;
}): { close(): Promise<void> } {
  const failed = (err: Error) => deps.logger.error({ err: err.message }, 'policy reload failed; the previous policies stay in force');
  const listener = listen(
    deps,
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
    {
      onListening: () => void deps.policies.load().catch(failed),
      onLost: () => void deps.policies.load().catch(failed),
    },
  );
  deps.policies.trustWhile(() => listener.proven());
  return listener;
}

// Sent inside the publishing transaction: Postgres delivers it on commit, never for a rollback.
export async function announcePolicyChange(tx: Queryable, scope: Scope): Promise<void> {
  await notify(tx, POLICY_CHANNEL, JSON.stringify({ tenant_id: scope.tenantId, mode: scope.mode }));
}
