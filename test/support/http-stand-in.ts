// A real HTTP server on 127.0.0.1 that plays an outside service in tests (the RDAP registry now,
// webhook receivers later): it records every request and answers as the test configures.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RecordedRequest = {
  method: string;
  // Path and query string, e.g. '/domain/example.com'.
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
};

export type StandInResponse = {
  status?: number;
  headers?: Record<string, string>;
  // An object is sent as JSON; a string as it is.
  body?: string | object;
  // Hold the answer this long (a slow service); close() cuts it short.
  delayMs?: number;
};

export type StandInHandler = (request: RecordedRequest) => StandInResponse | Promise<StandInResponse>;

export type HttpStandIn = {
  // 'http://127.0.0.1:<port>', no trailing slash.
  url: string;
  requests: RecordedRequest[];
  // Replace how later requests are answered.
  respondWith(handler: StandInHandler): void;
  // Resolves once `count` requests have arrived in all, or rejects at the deadline: no blind sleeps.
  waitForRequests(count: number, timeoutMs: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
};

export async function startHttpStandIn(handler: StandInHandler = () => ({ status: 204 }), port = 0): Promise<HttpStandIn> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(recorded);
    for (const wake of waiters) wake();
    try {
      const answer = await current(recorded);
      if (!answer.delayMs) return send(res, answer);
      const timer = setTimeout(() => {
        timers.delete(timer);
        send(res, answer);
      }, answer.delayMs);
      timers.add(timer);
    } catch (error) {
      send(res, { status: 500, body: { error: String(error) } });
    }
  });
  // Keep-alive sockets would hold close() open; a stand-in has no reason to reuse connections.
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${bound}`,
    requests,
    respondWith(next) {
      current = next;
    },
    waitForRequests(count, timeoutMs) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const wake = () => {
          if (requests.length < count) return;
          finish();
          resolve(requests.slice());
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`expected ${count} requests within ${timeoutMs} ms, got ${requests.length}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        waiters.add(wake);
      });
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function send(res: ServerResponse, answer: StandInResponse): void {
  if (res.destroyed || res.writableEnded) return;
  const isJson = answer.body !== undefined && typeof answer.body !== 'string';
  const body = isJson ? JSON.stringify(answer.body) : ((answer.body as string | undefined) ?? '');
  const headers = { ...(isJson ? { 'content-type': 'application/json' } : {}), ...answer.headers };
  res.writeHead(answer.status ?? 200, headers);
  res.end(body);
}
