// The HTTP server around the app: timeouts that cut slow or stalled clients (slowloris), and
// the contract's error shape for what Node rejects before Express sees a request.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.js';

type Timeouts = Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>;

// Node's own answers for a malformed message, a header section too large, a request too slow.
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time.'],
};
const BAD_REQUEST: [number, string, string] = [400, 'Bad Request', 'The request is not a well-formed HTTP/1.1 message.'];

function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
  // Answer only when nothing of a response has been written on this socket yet.
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const [status, reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? BAD_REQUEST;
    const body = JSON.stringify({ error: 'invalid_request', message, details: { issues: [{ path: '', message }] } });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function createHttpServer(app: http.RequestListener, timeouts: Timeouts): http.Server {
  const server = http.createServer(
    {
      // Headers must be complete within this, and the whole request (body included) within the next;
      // a client that announces a body and never sends it is cut at requestTimeout, answered 408.
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      // How often Node checks those two deadlines (its default, 30 s, would let them overrun).
      connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
    },
    app,
  );
  // An idle keep-alive connection lives longer than common load balancers' idle timeouts (60 s),
  // so they close first and never send on a socket we are closing.
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  server.on('clientError', answerClientError);
  return server;
}
