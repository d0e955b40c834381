// A range of rows read through a server-side cursor (pg-cursor), a batch at a time, so a range of
// any size is never held whole: replays, backtests and shadow reports read stored decisions so.
// Such a statement lasts as long as its reading (a backtest of a million events: minutes). Two
// timeouts of the service's own connections would cut it: Postgres's statement timeout
// (PG_STATEMENT_TIMEOUT_MS) cancels it, and pg's query timeout (PG_QUERY_TIMEOUT_MS) counts from
// a query's start, and ends a cursor it cuts as if the range had been read: the batches after it
// were silently missing. So a range is read on a connection of its own (none of the pool's, which
// the verdict needs), in a read-only transaction with the statement timeout lifted, and each read
// of a batch waits at most the query timeout: past it the connection is closed and the read fails.
// A consumer that stalls is bounded by Postgres's idle-in-transaction timeout.
import pg from 'pg';
import Cursor from 'pg-cursor';

export interface LongRead {
  text: string;
  values: unknown[];
  rowMode?: 'array';
  batchSize: number;
  // Whether the next batch is read while onBatch works on one.
  readAhead?: boolean;
}

// A connection of its own with the pool's settings but without pg's query timeout, which is
// returned for the caller to bound what it waits for. The caller ends it.
export async function connectOwn(pool: pg.Pool): Promise<{ client: pg.Client; queryTimeoutMs: number | undefined }> {
  const { query_timeout: queryTimeoutMs, ...options } = pool.options as pg.ClientConfig;
  const client = new pg.Client(options);
  // An error of the connection itself (closed by the server, or by a late read) fails the query in
  // progress; here it only must not go unhandled.
  client.on('error', () => undefined);
  await client.connect();
  return { client, queryTimeoutMs };
}

// Calls onBatch with each batch in the statement's order, and awaits it before the next.
export async function streamRows<R>(pool: pg.Pool, q: LongRead, onBatch: (rows: R[]) => Promise<void> | void): Promise<void> {
  const { client, queryTimeoutMs: readMs } = await connectOwn(pool);
  try {
    await client.query('BEGIN READ ONLY');
    await client.query('SET LOCAL statement_timeout = 0');
    const cursor = client.query(new Cursor<R>(q.text, q.values, q.rowMode ? { rowMode: q.rowMode } : undefined));
    const read = (): Promise<R[]> => {
      const rows = cursor.read(q.batchSize);
      // A read still in flight when onBatch throws must not become an unhandled rejection.
      rows.catch(() => undefined);
      return within(rows, readMs, () => void client.end().catch(() => undefined));
    };
    let next = read();
    for (;;) {
      const rows = await next;
      if (rows.length === 0) break;
      if (q.readAhead) next = read();
      await onBatch(rows);
      if (!q.readAhead) next = read();
    }
    await cursor.close();
    await client.query('COMMIT');
  } finally {
    await client.end().catch(() => undefined);
  }
}

function within<T>(p: Promise<T>, ms: number | undefined, onLate: () => void): Promise<T> {
  if (!ms) return p;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate();
      reject(new Error(`a batch of a long read got no answer within ${ms} ms (PG_QUERY_TIMEOUT_MS); the read was stopped`));
    }, ms);
  });
  late.catch(() => undefined);
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
