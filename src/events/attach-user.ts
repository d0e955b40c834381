// Use case: bind the caller's user id to a stored event, write-once (contract §3, §4.4), and give
// the identity graph the account link: the event's row is locked, bound, and the link written to
// the graph outbox in one short transaction; the graph writer applies it after the event's own
// link (same lane, later seq), so the account joins the event's cluster with nothing counted twice.
import type pg from 'pg';
import { inTransaction } from '../db/queryable.js';
import type { Scope } from '../scope.js';
import type { Config } from '../config.js';
import { linkOfStoredEvent } from './received-event.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import { AppError } from '../errors.js';
import type { GraphLinkPolicy } from '../engine/policy.js';
import { isSuperseded } from '../policies/documents/policy-store.js';
import type { PolicyRegistry } from '../policies/documents/policy-registry.js';
import { bindExternalUser, lockBinding } from './event-store.js';

// What the event use cases need; the composition root (src/deps.ts) passes its Deps.
export interface EventDeps {
  db: pg.Pool;
  config: Pick<Config, 'hubThreshold'>;
  graphOutbox: GraphOutbox;
  policies: PolicyRegistry;
}

export async function attachUser(deps: EventDeps, scope: Scope, input: { eventId: string; externalUserId: string }): Promise<void> {
  // Under the tenant's link policy in force, as the verdict's own link was, so a binding never
  // links a kind the policy does not; read before the transaction, and checked in it:
  // a policy published over meanwhile (this process's memory may lag by MEMORY_STALENESS_MS) is
  // read again and the binding made under the new one.
  for (let attempt = 0; ; attempt += 1) {
    const policy = await deps.policies.inForce(scope);
    const bound = await bind(deps, scope, input, policy.graph, attempt < 2 ? policy.version : undefined);
    if (bound) return;
    await deps.policies.refresh(scope);
  }
}

// False when the policy was superseded (nothing written).
async function bind(
  deps: Pick<EventDeps, 'db' | 'config' | 'graphOutbox'>,
  scope: Scope,
  input: { eventId: string; externalUserId: string },
  linkPolicy: GraphLinkPolicy | undefined,
  version: string | undefined,
): Promise<boolean> {
  return inTransaction(deps.db, async (tx) => {
    const event = await lockBinding(tx, scope, input.eventId);
    if (!event) throw new AppError('not_found', `No event ${input.eventId}.`);
    if (event.externalUserId === input.externalUserId) return true;
    if (event.externalUserId !== undefined) {
      throw new AppError('conflict', 'This event is already bound to a different external_user_id; the binding is write-once.');
    }
    if (version !== undefined && (await isSuperseded(tx, scope, version))) return false;
    await bindExternalUser(tx, scope, input.eventId, input.externalUserId);
    const link = linkOfStoredEvent(
      scope,
      { ...event, id: input.eventId, externalUserId: input.externalUserId },
      deps.config.hubThreshold,
      linkPolicy,
    );
    if (link) await deps.graphOutbox.accountLink(tx, scope, link);
    return true;
  });
}
