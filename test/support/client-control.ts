// What the Python and Go clients' integration tests need from the real service, served on
// loopback for their own processes: a control server that plays the operator and the analyst
// (set or rotate the tenant's webhook, resolve a review, read a delivery's attempts), and a flaky
// proxy in front of the real server (the recording proxy) that answers the next requests itself
// (a 503 with `retry-after`) when armed, then forwards, recording every request it saw. The
// protocol is described in clients/test-vectors/README.md.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deps } from '../../src/deps.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import type { Scope } from '../../src/scope.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { startRecordingProxy } from './recording-proxy.js';

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

function reply(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startClientControl(deps: Deps, scope: Scope, serverUrl: string): Promise<ClientControl> {
  let armed = { count: 0, status: 503, retryAfter: '1' };
  let armedAt = 0;
  const flaky = await startRecordingProxy(serverUrl, () => {
    if (armed.count === 0) return undefined;
    armed.count -= 1;
    return {
      status: armed.status,
      headers: { 'content-type': 'application/json', 'retry-after': armed.retryAfter },
      body: JSON.stringify({ error: 'internal', message: 'the flaky proxy answered for the service' }),
    };
  });
  // What the proxy saw since it was last armed.
  const seen = (): FlakyRequest[] =>
    flaky.exchanges.slice(armedAt).map((e) => ({
      method: e.method,
      path: e.path,
      idempotency_key: typeof e.headers['idempotency-key'] === 'string' ? e.headers['idempotency-key'] : null,
      body_sha256: createHash('sha256').update(e.body).digest('hex'),
      status: e.status,
    }));

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
        armedAt = flaky.exchanges.length;
        return reply(res, 200, {});
      }
      if (route === 'GET /flaky') return reply(res, 200, { requests: seen() });
      return reply(res, 404, { error: 'not_found', message: `no control route ${route}` });
    } catch (err) {
      return reply(res, 500, { error: 'internal', message: String(err) });
    }
  });

  await new Promise<void>((resolve, reject) => {
    control.once('error', reject);
    control.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    controlUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    flakyUrl: flaky.url,
    close: async () => {
      control.closeAllConnections();
      await new Promise<void>((resolve) => control.close(() => resolve()));
      await flaky.close();
    },
  };
}
