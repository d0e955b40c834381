// An HTTP proxy on loopback in front of a real Doorman that records each exchange as it went
// over the wire (method, path, headers, the exact body bytes, the status answered), so a test
// can see what a client sent on each retry.
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

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const listeners: Array<(exchange: Exchange) => void> = [];
  const upstream = new URL(target);
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
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
        answer.on('end', () => {
          const exchange = {
            method: req.method ?? 'GET',
            path: req.url ?? '/',
            headers: req.headers,
            body,
            status: answer.statusCode ?? 502,
          };
          exchanges.push(exchange);
          for (const listener of listeners) listener(exchange);
        });
      },
    );
    forward.on('error', () => res.destroy());
    forward.end(body);
  });
  server.keepAliveTimeout = 1;
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
