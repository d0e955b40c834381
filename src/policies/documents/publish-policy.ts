// Use case: publish a policy document for a scope as a new immutable version
// <YYYY-MM-DD>.<n> (n counting the scope's publications that day, after any shipped default
// of the same day, so one version names one document), and tell every instance.
import type pg from 'pg';
import { inTransaction } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import { AppError } from '../../errors.js';
import { announcePolicyChange } from './policy-registry.js';
import { highestNumberOfDay, insertPolicyVersion, lockScopePublications } from './policy-store.js';
import { SHIPPED_POLICIES } from './shipped-policies.js';
import { validatePolicyDocument } from './validate-policy.js';

export interface PublishInput {
  document: unknown;
  note?: string;
}

export async function publishPolicy(deps: { db: pg.Pool; clock: { now(): Date } }, scope: Scope, input: PublishInput): Promise<string> {
  const checked = validatePolicyDocument(input.document);
  if (!checked.ok) throw AppError.invalid(checked.issues, 'The policy document is invalid.');
  const day = deps.clock.now().toISOString().slice(0, 10);
  const shippedThatDay = SHIPPED_POLICIES.filter((p) => p.version.startsWith(`${day}.`)).map((p) => Number(p.version.split('.')[1]));
  try {
    return await inTransaction(deps.db, async (tx) => {
      await lockScopePublications(tx, scope);
      const n = Math.max(await highestNumberOfDay(tx, scope, day), ...shippedThatDay) + 1;
      const version = `${day}.${n}`;
      await insertPolicyVersion(tx, scope, version, { ...checked.document, version }, input.note);
      await announcePolicyChange(tx, scope);
      return version;
    });
  } catch (err) {
    // The tenant does not exist (foreign key).
    if ((err as { code?: string }).code === '23503') throw new AppError('not_found', `No tenant ${scope.tenantId}.`);
    throw err;
  }
}
