// Use cases behind `doorman list add|remove`.
import type pg from 'pg';
import type { Scope } from '../scope.js';
import { AppError } from '../errors.js';
import { tenantExists } from '../tenants/key-store.js';
import { addListEntry, removeListEntry } from './list-store.js';
import { normalizeListValue, type ListKind } from './list-values.js';

export async function changeList(
  db: pg.Pool,
  scope: Scope,
  change: { action: 'add' | 'remove'; list: 'allow' | 'block'; kind: ListKind; value: string },
): Promise<void> {
  if (!(await tenantExists(db, scope.tenantId))) throw new AppError('not_found', `No tenant ${scope.tenantId}.`);
  const value = normalizeListValue(change.kind, change.value);
  if (value === undefined) throw AppError.invalid([{ path: 'value', message: `is not a valid ${change.kind}` }]);
  if (change.action === 'add') await addListEntry(db, scope, change.list, change.kind, value);
  else if (!(await removeListEntry(db, scope, change.list, change.kind, value))) {
    throw new AppError('not_found', `${change.value} is not on the ${change.list} list as ${change.kind}.`);
  }
}
