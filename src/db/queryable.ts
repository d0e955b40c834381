// The handle store functions take: the pool, or a client inside a transaction.
import type pg from 'pg';

export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

// Work to do once a transaction has committed (waking a writer of what it queued), per client.
const commitHooks = new WeakMap<object, (() => void)[]>();

// Runs fn after `db` commits: at once when `db` is the pool (the statement just run has
// committed), after COMMIT inside inTransaction, and never when the transaction rolls back.
export function afterCommit(db: Queryable, fn: () => void): void {
  const hooks = commitHooks.get(db);
  if (hooks) hooks.push(fn);
  else fn();
}

// Runs fn inside one short transaction on a dedicated client.
export async function inTransaction<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const hooks: (() => void)[] = [];
  let failure: Error | undefined;
  // A checked-out client has no error listener of the pool's: a connection lost between two
  // statements would be an unhandled 'error' event and end the process. Note it instead; the
  // next statement then fails, and the client is dropped on release.
  const onError = (err: Error) => {
    failure ??= err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    commitHooks.set(client, hooks);
    const result = await fn(client);
    await client.query('COMMIT');
    commitHooks.delete(client);
    for (const hook of hooks) hook();
    return result;
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    commitHooks.delete(client);
    client.off('error', onError);
    // A client that failed (a reset, a timed-out query) is destroyed, not reused.
    client.release(failure);
  }
}
