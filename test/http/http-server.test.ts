// The HTTP server's own edge: slow clients are cut by the headers and request timeouts
// (slowloris), and what Node rejects before Express still answers in the contract's shape.
import { expect } from 'chai';
import net from 'node:net';
import type http from 'node:http';
import { createApp } from '../../src/app.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';

const deps = testDeps();
const timeouts = { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 65_000 };

// Sends `first`, then `drip` every 100 ms until the server answers and closes; resolves with
// everything the server sent and how long it took. The drip stops at the server's first byte. A
// drop written in the instant between the server's answer and its reading here is answered with a
// reset that can discard the unread answer (a busy run saw ECONNRESET): a reset after an answer
// still resolves with it, and one before any answer tries the exchange once more.
function talk(port: number, first: string, drip?: string, again = true): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(first));
    let text = '';
    const timer = drip ? setInterval(() => socket.writable && socket.write(drip), 100) : undefined;
    // Settled once: the close that follows an error must not answer for it.
    let settled = false;
    const done = () => {
      clearInterval(timer);
      if (!settled) resolve({ text, ms: Date.now() - started });
      settled = true;
    };
    socket.on('data', (chunk) => {
      clearInterval(timer);
      text += chunk.toString('utf8');
    });
    socket.on('end', () => clearInterval(timer));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      clearInterval(timer);
      if (settled) return;
      if (err.code === 'ECONNRESET' && text) return done();
      settled = true;
      if (err.code === 'ECONNRESET' && drip && again) talk(port, first, drip, false).then(resolve, reject);
      else reject(err);
    });
    socket.on('close', done);
  });
}

function parse(text: string): { status: number; body: Record<string, unknown> } {
  const [head, body] = text.split('\r\n\r\n');
  return { status: Number(head!.split(' ')[1]), body: JSON.parse(body!) as Record<string, unknown> };
}

describe('the HTTP server', () => {
  let server: http.Server;
  let port: number;
  let tenant: TestTenant;

  before(async () => {
    tenant = await aTenant(deps);
    server = createHttpServer(createApp(deps), timeouts);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('cuts a client that drips its headers and never ends them with 408 in the contract shape', async () => {
    const { text, ms } = await talk(port, 'POST /v1/verdict HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n');
    const { status, body } = parse(text);
    expect(status).to.equal(408);
    expect(body.error).to.equal('invalid_request');
    expect(body.message).to.match(/in time/);
    expect(ms).to.be.below(3000);
  });

  it('cuts a client that announces a body and never sends it with 408', async () => {
    const head =
      `POST /v1/verdict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.keys.sk_test}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{"event_type":';
    const { text, ms } = await talk(port, head, ' ');
    expect(text).to.match(/^HTTP\/1\.1 408 /);
    expect(parse(text).body.error).to.equal('invalid_request');
    expect(ms).to.be.within(timeouts.requestTimeoutMs - 50, 4000);
  });

  it('answers a message that is not HTTP with 400 invalid_request as JSON', async () => {
    const { text } = await talk(port, 'HELLO THERE\r\n\r\n');
    expect(text).to.match(/Content-Type: application\/json/);
    const { status, body } = parse(text);
    expect(status).to.equal(400);
    expect(body).to.include({ error: 'invalid_request' });
    expect((body.details as { issues: unknown[] }).issues).to.have.length(1);
  });

  it('answers headers over the size limit with 431 in the contract shape', async () => {
    const { text } = await talk(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const { status, body } = parse(text);
    expect(status).to.equal(431);
    expect(body.error).to.equal('invalid_request');
  });

  it('keeps idle keep-alive connections longer than common load balancers do', () => {
    expect(server.keepAliveTimeout).to.equal(65_000);
    expect(server.headersTimeout).to.equal(timeouts.headersTimeoutMs);
    expect(server.requestTimeout).to.equal(timeouts.requestTimeoutMs);
  });
});
