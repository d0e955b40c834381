// The clusters new accounts made or grew in a window: the overview's counts ("what changed?") and
// the full list they lead to, from one reading so the two always agree. The accounts first seen in
// the window come from Postgres (at most NEW_ACCOUNTS_CAP), their clusters now from the graph.
// Reads only.
import type { Scope } from '../scope.js';
import { AppError } from '../errors.js';
import type { ConsoleDeps } from './console-deps.js';
import { accountsFirstSeen, type Window } from './overview-store.js';
import { clusterGrowth, type ClusterGrowth } from './cluster-picture.js';
import type { ClusterChanges, ClusterChangesQuery } from './generated/console-wire.js';

// Accounts first seen in a window looked up in the graph, at most.
const NEW_ACCOUNTS_CAP = 5_000;
// The longest window the list is asked for (the overview's are a day; a month bounds the scan).
const LONGEST_WINDOW_MS = 31 * 86_400_000;

type GrowthDeps = Pick<ConsoleDeps, 'db' | 'graph' | 'cypher' | 'config'>;

// Every cluster made or grown in the window, largest first (then by id, the list's order).
export async function clustersChangedIn(
  deps: GrowthDeps,
  scope: Scope,
  w: Pick<Window, 'from' | 'to'>,
): Promise<{ clusters: ClusterGrowth[]; capped: boolean }> {
  const first = await accountsFirstSeen(deps.db, scope, w, NEW_ACCOUNTS_CAP);
  const clusters = await clusterGrowth(deps, scope, first.accounts);
  clusters.sort((a, b) => b.accounts - a.accounts || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { clusters, capped: first.capped };
}

export const changeCounts = (clusters: ClusterGrowth[]) => ({
  made: clusters.filter((c) => c.change === 'made').length,
  grown: clusters.filter((c) => c.change === 'grown').length,
  confirmed: clusters.filter((c) => c.confirmedAbuse).length,
});

// The cursor of the list: the (accounts, id) of a page's last cluster.
const encode = (c: ClusterGrowth): string => Buffer.from(JSON.stringify([c.accounts, c.id])).toString('base64url');
function decode(cursor: string): { accounts: number; id: string } {
  try {
    const [accounts, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isInteger(accounts) && typeof id === 'string') return { accounts: accounts as number, id };
  } catch {}
  throw AppError.invalid([{ path: '/cursor', message: 'is not a next_cursor from a previous page' }]);
}

// One page of the window's clusters, made or grown or both, confirmed or all; with the window's
// counts, which are the overview's for the same window.
export async function clusterChanges(
  deps: GrowthDeps & Pick<ConsoleDeps, 'logger'>,
  scope: Scope,
  q: ClusterChangesQuery & { limit: number },
): Promise<ClusterChanges> {
  const w = { from: new Date(q.from), to: new Date(q.to) };
  const span = w.to.getTime() - w.from.getTime();
  if (span <= 0 || span > LONGEST_WINDOW_MS) throw AppError.invalid([{ path: '/to', message: 'must be after from, by at most 31 days' }]);
  let changed: Awaited<ReturnType<typeof clustersChangedIn>>;
  try {
    changed = await clustersChangedIn(deps, scope, w);
  } catch (err) {
    if (err instanceof AppError) throw err;
    deps.logger.warn({ err: String(err) }, 'console: cluster growth unavailable');
    throw AppError.unavailable('The identity graph did not answer, so the clusters cannot be listed now; try again.');
  }
  const listed = changed.clusters.filter((c) => (!q.change || c.change === q.change) && (!q.confirmed || c.confirmedAbuse));
  const after = q.cursor ? decode(q.cursor) : undefined;
  const rest = after ? listed.filter((c) => c.accounts < after.accounts || (c.accounts === after.accounts && c.id > after.id)) : listed;
  const page = rest.slice(0, q.limit);
  return {
    from: w.from.toISOString(),
    to: w.to.toISOString(),
    counts: changeCounts(changed.clusters),
    capped: changed.capped,
    total: listed.length,
    clusters: page.map((c) => ({
      id: c.id,
      accounts: c.accounts,
      new_accounts: c.fresh,
      change: c.change,
      confirmed_abuse: c.confirmedAbuse,
    })),
    ...(rest.length > page.length && { next_cursor: encode(page.at(-1)!) }),
  };
}
