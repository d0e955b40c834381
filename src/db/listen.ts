// A dedicated Postgres connection that LISTENs on a channel and calls back on each NOTIFY,
// reconnecting after a failure. Used for fleet-wide signals such as "reload intelligence", and
// by the memories of Postgres rows that trust announcements (db/announced-memory.ts).
// Always on the direct URL (config.databaseDirectUrl): through a transaction-mode PgBouncer a
// LISTEN succeeds and then hears nothing, as its server connection goes back to the pool.
// Its liveness is proven, never assumed: a socket gone silent (a NAT that forgot it,
// a half-open peer, a partition) raises no error. So each connection also LISTENs on a channel
// of its own and NOTIFYs itself every third of the bound (MEMORY_STALENESS_MS). Postgres delivers
// notifications in commit order, so a heartbeat sent at T, once received, proves that every
// announcement committed before T has arrived. proven() holds while the newest proof is younger
// than the bound, read from the clock when asked (a late timer cannot stretch it); past the
// bound the connection is dropped (onLost) and made again (onListening). The heartbeats never
// reach onNotify. TCP keepalive is on too, both ends. Postgres also ends the session once its
// heartbeats stop (idle_session_timeout) or what it sends goes unacknowledged (tcp_user_timeout):
// an orphaned listener would otherwise hold the notification queue's tail, which cannot advance
// past the slowest listener, while every process's heartbeats pile up behind it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

export interface ListenOptions {
  // Each time the LISTEN is (re)established: a listener catches up on what it may have missed.
  onListening?: () => void;
  // The connection was lost, went silent past the bound, or could not be made: a cache that
  // trusts its notifications stops trusting them.
  onLost?: () => void;
}

export interface Listener {
  // Every announcement committed more than the bound ago has arrived on this connection.
  proven(): boolean;
  close(): Promise<void>;
}

// Reconnection attempts back off from a quarter second to this.
const MAX_RETRY_MS = 5_000;

export function listen(
  deps: { config: Pick<Config, 'databaseDirectUrl' | 'memoryStalenessMs'>; logger: Logger },
  channel: string,
  onNotify: (payload: string) => void,
  { onListening, onLost }: ListenOptions = {},
): Listener {
  const { logger } = deps;
  const bound = deps.config.memoryStalenessMs;
  const every = Math.max(20, Math.round(bound / 3));
  // Monotonic: a wall clock stepped back must not make an old proof young.
  const now = () => performance.now();
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let current: { proven(): boolean; end(): Promise<void> } | undefined;

  const connect = () => {
    if (closed) return;
    const startedAt = now();
    const own = `doorman_alive_${randomBytes(8).toString('hex')}`;
    // Named for pg_stat_activity: which process listens, on what.
    const c = new pg.Client({
      connectionString: deps.config.databaseDirectUrl,
      application_name: `doorman ${process.pid} listen ${channel}`.slice(0, 63),
      keepAlive: true,
      keepAliveInitialDelayMillis: every,
    });
    let up = false;
    let dead = false;
    let provenAt = -Infinity;
    let beating = false;
    let lastTick = startedAt;

    const drop = (why: string) => {
      if (dead) return;
      dead = true;
      clearInterval(timer);
      if (current === attempt) current = undefined;
      // Nothing more from this connection counts, and nothing is said over it: cut the socket.
      c.removeAllListeners('notification');
      void c.end().catch(() => undefined);
      c.connection.stream.destroy();
      if (closed) return;
      onLost?.();
      failures += 1;
      const wait = Math.min(MAX_RETRY_MS, 250 * 2 ** (failures - 1));
      logger.warn({ channel, err: why, retryInMs: wait }, 'listen connection lost; reconnecting');
      retry = setTimeout(connect, wait);
    };

    const timer = setInterval(() => {
      const t = now();
      // This process was busy past a beat: what arrived meanwhile is read before judging.
      const late = t - lastTick > 2 * every;
      lastTick = t;
      if (late) return;
      if (!up) {
        if (t - startedAt > bound) drop(`no LISTEN within ${bound} ms`);
        return;
      }
      if (t - provenAt > bound) return drop(`no heartbeat for ${bound} ms`);
      if (beating) return;
      beating = true;
      c.query('SELECT pg_notify($1, $2)', [own, String(t)])
        .catch(() => undefined)
        .finally(() => {
          beating = false;
        });
    }, every);
    timer.unref();

    const attempt = {
      proven: () => up && !dead && now() - provenAt <= bound,
      async end() {
        dead = true;
        clearInterval(timer);
        // A silent socket would hold a polite goodbye forever.
        await Promise.race([c.end().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, bound).unref())]);
        c.connection.stream.destroy();
      },
    };
    current = attempt;

    c.on('notification', (msg) => {
      if (msg.channel === own) {
        const sentAt = Number(msg.payload);
        if (Number.isFinite(sentAt) && sentAt > provenAt) provenAt = sentAt;
      } else if (msg.channel === channel) {
        onNotify(msg.payload ?? '');
      }
    });
    c.on('error', (err) => drop(err.message));
    void (async () => {
      try {
        await c.connect();
        const listenedAt = now();
        // The server gives up on a vanished client in seconds too (see above).
        await c.query(
          [
            `SET idle_session_timeout = ${Math.max(10_000, 3 * bound)}`,
            'SET tcp_user_timeout = 10000',
            'SET tcp_keepalives_idle = 5',
            'SET tcp_keepalives_interval = 2',
            'SET tcp_keepalives_count = 3',
            `LISTEN ${pg.escapeIdentifier(channel)}`,
            `LISTEN ${pg.escapeIdentifier(own)}`,
          ].join('; '),
        );
        if (dead) return;
        // Whatever committed before the LISTEN is the listener's catch-up to read (onListening).
        up = true;
        provenAt = listenedAt;
        failures = 0;
        onListening?.();
      } catch (err) {
        drop(`cannot listen: ${String(err)}`);
      }
    })();
  };
  connect();
  return {
    proven: () => current?.proven() ?? false,
    async close() {
      closed = true;
      clearTimeout(retry);
      const attempt = current;
      current = undefined;
      await attempt?.end();
    },
  };
}

export async function notify(db: Pick<pg.Pool, 'query'> | pg.PoolClient, channel: string, payload = ''): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
}
