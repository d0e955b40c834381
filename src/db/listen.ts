// A dedicated Postgres connection that LISTENs on a channel and calls back on each NOTIFY,
// reconnecting after a failure. Used for fleet-wide signals such as "reload intelligence".
// Always on the direct URL (config.databaseDirectUrl): through a transaction-mode PgBouncer a
// LISTEN succeeds and then hears nothing, as its server connection goes back to the pool.
// onListening runs each time the LISTEN is (re)established, so a listener can catch up on
// what it may have missed while disconnected; onLost runs when the connection is lost (or the
// LISTEN could not be set up), so a cache that trusts its notifications can stop trusting them.
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

export interface ListenOptions {
  onListening?: () => void;
  onLost?: () => void;
}

export function listen(
  deps: { config: Pick<Config, 'databaseDirectUrl'>; logger: Logger },
  channel: string,
  onNotify: (payload: string) => void,
  { onListening, onLost }: ListenOptions = {},
): { close(): Promise<void> } {
  const { logger } = deps;
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    // Named for pg_stat_activity: which process listens, on what.
    const c = new pg.Client({ connectionString: deps.config.databaseDirectUrl, application_name: `doorman ${process.pid} listen ${channel}`.slice(0, 63) });
    c.on('notification', (msg) => {
      if (msg.channel === channel) onNotify(msg.payload ?? '');
    });
    c.on('error', (err) => {
      onLost?.();
      logger.warn({ channel, err: err.message }, 'listen connection lost; reconnecting');
      void c.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), 5000);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      client = c;
      onListening?.();
    } catch (err) {
      onLost?.();
      logger.warn({ channel, err: String(err) }, 'cannot listen; retrying in 5 s');
      void c.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), 5000);
    }
  };
  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}

export async function notify(db: Pick<pg.Pool, 'query'> | pg.PoolClient, channel: string, payload = ''): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
}
