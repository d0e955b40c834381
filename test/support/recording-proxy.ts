// An HTTP proxy on loopback in front of a real Doorman that records each exchange as it went
// over the wire (method, path, headers, the exact body bytes, the status answered), so a test
// can see what a client sent on each retry. Given `answerFirst`, it may answer a request itself
// (a 503 before the service is reached, say), recorded like any other.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  status: number;
}

export interface RecordingProxy {
  url: string;
  exchanges: Exchange[];
  // Called once each answer has been passed back.
  onAnswer(listener: (exchange: Exchange) => void): void;
  close(): Promise<void>;
}

// An answer the proxy gives itself instead of forwarding; undefined forwards.
export type OwnAnswer = { status: number; headers?: Record<string, string>; body: string };

export async function startRecordingProxy(
  target: string,
  answerFirst: (request: Omit<Exchange, 'status'>) => OwnAnswer | undefined = () => undefined,
): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const listeners: Array<(exchange: Exchange) => void> = [];
  const upstream = new URL(target);
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const request = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
    const record = (status: number) => {
      const exchange = { ...request, status };
      exchanges.push(exchange);
      for (const listener of listeners) listener(exchange);
    };
    const own = answerFirst(request);
    if (own) {
      res.writeHead(own.status, own.headers);
      res.end(own.body, () => record(own.status));
      return;
    }
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => record(answer.statusCode ?? 502));
      },
    );
    forward.on('error', () => res.destroy());
    forward.end(body);
  });
  // Idle connections are kept as Node keeps them (5 s). Set to 1 ms, Node closed them after
  // 1 ms plus its keepAliveTimeoutBuffer of 1000 ms: just when a client that honoured a
  // `retry-after: 1` sent its retry on the same connection, which then failed ("server
  // disconnected", 1 in 40 such retries here). close() ends them all at once.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    onAnswer(listener) {
      listeners.push(listener);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
