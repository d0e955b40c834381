// What the Python and Go clients' integration tests need from the real service, served on
// loopback for their own processes: a control server that plays the operator and the analyst
// (set or rotate the tenant's webhook, resolve a review, read a delivery's attempts), and a flaky
// proxy in front of the real server that answers the next requests itself (a 503 with
// `retry-after`) when armed, then forwards, recording every request it saw. The protocol is
// described in clients/test-vectors/README.md.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deps } from '../../src/deps.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import type { Scope } from '../../src/scope.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';

export interface FlakyRequest {
  method: string;
  path: string;
  idempotency_key: string | null;
  body_sha256: string;
  status: number;
}

export interface ClientControl {
  controlUrl: string;
  flakyUrl: string;
  close(): Promise<void>;
}

async function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function reply(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startClientControl(deps: Deps, scope: Scope, serverUrl: string): Promise<ClientControl> {
  const upstream = new URL(serverUrl);
  let armed = { count: 0, status: 503, retryAfter: '1' };
  let seen: FlakyRequest[] = [];

  const flaky = http.createServer(async (req, res) => {
    const body = await bodyOf(req);
    const record: FlakyRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      idempotency_key: typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null,
      body_sha256: createHash('sha256').update(body).digest('hex'),
      status: 0,
    };
    seen.push(record);
    if (armed.count > 0) {
      armed.count -= 1;
      record.status = armed.status;
      reply(
        res,
        armed.status,
        { error: 'internal', message: 'the flaky proxy answered for the service' },
        { 'retry-after': armed.retryAfter },
      );
      return;
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        record.status = answer.statusCode ?? 502;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      record.status = 502;
      reply(res, 502, { error: 'internal', message: 'the flaky proxy could not reach the service' });
    });
    forward.end(body);
  });

  const control = http.createServer(async (req, res) => {
    try {
      const raw = (await bodyOf(req)).toString('utf8');
      const input = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
      const path = req.url ?? '/';
      const route = `${req.method} ${path.startsWith('/deliveries/') ? '/deliveries/:id' : path}`;
      if (route === 'POST /webhook') {
        const { secret } = await setWebhook(deps, scope, String(input.url));
        return reply(res, 200, { secret });
      }
      if (route === 'POST /resolve') {
        const resolution = input.resolution === 'approved' ? 'approved' : 'denied';
        const resolved = await resolveReview(deps, scope, {
          eventId: String(input.event_id),
          resolution,
          resolvedBy: 'client-tests',
          note: 'resolved by a client integration test',
        });
        return reply(res, 200, { delivery_id: resolved.deliveryId });
      }
      if (route === 'GET /deliveries/:id') {
        const id = decodeURIComponent(path.slice('/deliveries/'.length));
        // The delivery must be this tenant's: the id alone would reach another's.
        const { rows } = await deps.db.query(
          `SELECT a.status_code FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
            WHERE d.tenant_id = $1 AND d.mode = $2 AND a.delivery_id = $3 ORDER BY a.attempt`,
          [scope.tenantId, scope.mode, id],
        );
        return reply(res, 200, { attempts: rows.map((r) => r.status_code) });
      }
      if (route === 'POST /flaky') {
        armed = { count: Number(input.count ?? 1), status: Number(input.status ?? 503), retryAfter: String(input.retry_after ?? '1') };
        seen = [];
        return reply(res, 200, {});
      }
      if (route === 'GET /flaky') return reply(res, 200, { requests: seen });
      return reply(res, 404, { error: 'not_found', message: `no control route ${route}` });
    } catch (err) {
      return reply(res, 500, { error: 'internal', message: String(err) });
    }
  });

  const [controlUrl, flakyUrl] = await Promise.all([listen(control), listen(flaky)]);
  return {
    controlUrl,
    flakyUrl,
    close: async () => {
      for (const server of [control, flaky]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
