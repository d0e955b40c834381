// The accounts behind one identifier, as the console shows a hub: how many accounts share it,
// which of them are confirmed abusers, and how many reviews wait on the others ("this device
// links 7 pending reviews to 2 confirmed abusers"). The graph says who links to it and who is
// marked; Postgres says which reviews are pending. Reads only.
import neo4j from 'neo4j-driver';
import type { ConsoleDeps } from './console-deps.js';
import type { Scope } from '../scope.js';
import { AppError } from '../errors.js';
import type { HubAccounts } from './generated/console-wire.js';

export async function hubAccounts(
  deps: Pick<ConsoleDeps, 'db' | 'graph' | 'cypher' | 'config'>,
  scope: Scope,
  kind: string,
  value: string,
  page: { skip: number; limit: number } = { skip: 0, limit: 500 },
): Promise<HubAccounts> {
  const { skip, limit } = page;
  const { records } = await deps.graph.executeQuery(
    deps.cypher.get('console/hub-accounts'),
    { ...scope, kind, value, skip: neo4j.int(skip), limit: neo4j.int(limit) },
    { routing: neo4j.routing.READ, transactionConfig: { timeout: deps.config.consoleQueryTimeoutMs } },
  );
  const row = records[0]?.toObject() as
    | {
        hub: boolean;
        accounts: number;
        confirmed: number;
        listed: { externalId: string; linkedAt: number | null; expired: boolean; confirmed: boolean }[];
      }
    | undefined;
  if (!row) throw new AppError('not_found', `No identifier ${kind} ${value} in this tenant and mode.`);
  // Pending reviews of every account on it, not only those listed.
  const { rows } = await deps.db.query<{ external_user_id: string; pending: number }>(
    `SELECT e.external_user_id, count(*)::int AS pending
       FROM reviews r JOIN events e ON e.tenant_id = r.tenant_id AND e.mode = r.mode AND e.id = r.event_id
      WHERE r.tenant_id = $1 AND r.mode = $2 AND r.status = 'pending' AND e.external_user_id = ANY($3)
      GROUP BY 1`,
    [scope.tenantId, scope.mode, row.listed.map((a) => a.externalId)],
  );
  const pending = new Map(rows.map((r) => [r.external_user_id, r.pending]));
  const accounts = row.listed.map((a) => ({
    external_user_id: a.externalId,
    linked_at: a.linkedAt === null ? null : new Date(Number(a.linkedAt)).toISOString(),
    expired: a.expired,
    confirmed: a.confirmed,
    pending_reviews: pending.get(a.externalId) ?? 0,
  }));
  return {
    kind,
    value,
    hub: row.hub,
    accounts_total: Number(row.accounts),
    confirmed_accounts: Number(row.confirmed),
    // The reviews pending on accounts not confirmed: what the confirmed ones tie to them.
    pending_reviews: accounts.filter((a) => !a.confirmed).reduce((n, a) => n + a.pending_reviews, 0),
    accounts,
    truncated: Number(row.accounts) > skip + accounts.length,
    ...(Number(row.accounts) > skip + accounts.length && { next_skip: skip + accounts.length }),
  };
}
