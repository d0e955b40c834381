// The Postgres pool as the service configures it, in one place (rule 9): createDeps calls it, and
// it lives apart from deps.ts so that building a pool does not load every other client.
import pg from 'pg';
import type { Config } from '../config.js';
import { CorkingSocket } from './corking-socket.js';

// A client that sends every statement unnamed: what PgBouncer in transaction mode (before 1.21)
// carries, since the next transaction may run on another server connection that never saw the
// prepared statement. The hot queries name theirs; PG_NAMED_STATEMENTS=false turns names off here.
class UnnamedStatementClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [first, ...rest] = args;
    if (first !== null && typeof first === 'object' && 'name' in first && 'text' in first && !('submit' in first)) {
      const { name: _name, ...unnamed } = first as pg.QueryConfig;
      return (super.query as (...a: unknown[]) => never)(unnamed, ...rest);
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

export function createPool(config: Config): pg.Pool {
  return new pg.Pool({
    ...(config.pgNamedStatements ? {} : { Client: UnnamedStatementClient }),
    connectionString: config.databaseUrl,
    // One write per tick instead of one per protocol message (src/db/corking-socket.ts).
    stream: () => new CorkingSocket(),
    max: config.pgPoolMax,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    // Client-side: also ends a wait on a stalled network, which a server-side timeout cannot.
    query_timeout: config.pgQueryTimeoutMs,
    // Server-side, shorter: Postgres cancels and rolls back first, so a timed-out write never
    // commits after the caller was told 500 (config.ts).
    ...(config.pgServerTimeouts && {
      statement_timeout: config.pgStatementTimeoutMs,
      idle_in_transaction_session_timeout: config.pgIdleInTransactionTimeoutMs,
    }),
  });
}
