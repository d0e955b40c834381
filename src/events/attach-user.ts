// Use case: bind the caller's user id to a stored event, write-once (contract §3, §4.4).
import type { Scope } from '../db/queryable.js';
import type { Deps } from '../deps.js';
import { AppError } from '../http/app-error.js';
import { bindExternalUser, type StoredEvent } from './event-store.js';

export type AfterBind = (scope: Scope, event: StoredEvent) => Promise<void>;

export async function attachUser(
  deps: Pick<Deps, 'db'>,
  scope: Scope,
  input: { eventId: string; externalUserId: string },
  afterBind: AfterBind = async () => undefined,
): Promise<void> {
  const { result, event } = await bindExternalUser(deps.db, scope, input.eventId, input.externalUserId);
  if (result === 'missing') throw new AppError('not_found', `No event ${input.eventId}.`);
  if (result === 'conflict') {
    throw new AppError('conflict', 'This event is already bound to a different external_user_id; the binding is write-once.');
  }
  if (result === 'bound' && event) await afterBind(scope, event);
}
