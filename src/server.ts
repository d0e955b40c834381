// Runs the API: listens at once (answering /health, holding other requests while it warms up),
// runs the graph writer, and shuts down cleanly on SIGTERM/SIGINT (stop accepting, finish
// in-flight requests, stop the graph writer after its batch, close the stores).
import type http from 'node:http';
import { createApp } from './app.js';
import { createHttpServer } from './http/http-server.js';
import type { Deps } from './deps.js';
import { redisReady } from './redis-ready.js';
import { watchIntelReloads } from './signals/ip/intel-reload.js';
import { watchDeviceKeys } from './devices/watch-device-keys.js';
import { watchPolicies } from './policies/policy-registry.js';
import { deleteExpiredKeys } from './verdicts/idempotency-store.js';

const HOUSEKEEPING_MS = 10 * 60_000;

export async function serve(deps: Deps): Promise<http.Server> {
  // Velocity and rate limits start working as soon as Redis connects; do not wait long for it.
  await redisReady(deps.redis, 3000).catch((err: Error) => deps.logger.warn({ err: err.message }, 'starting without redis'));
  // Warming starts before listening, so the gate holds the first requests and /health says so.
  const warming = deps.warmup();
  const app = createApp(deps);
  const server = createHttpServer(app, deps.config);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : deps.config.port;
  deps.logger.info({ host: deps.config.host, port }, `doorman listening on http://${deps.config.host}:${port}`);
  await deps.graphWriter.start();
  await warming;

  const intelWatch = watchIntelReloads(deps);
  const deviceKeyWatch = watchDeviceKeys(deps);
  const policyWatch = watchPolicies(deps);
  // Expired idempotency records are already ignored; deleting them keeps the table small.
  const housekeeping = setInterval(() => {
    deleteExpiredKeys(deps.db, deps.clock.now()).catch((err: Error) => deps.logger.warn({ err: err.message }, 'housekeeping failed'));
  }, HOUSEKEEPING_MS).unref();

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info({ signal }, 'shutting down');
    clearInterval(housekeeping);
    void intelWatch.close();
    void deviceKeyWatch.close();
    void policyWatch.close();
    server.close(() => void deps.close().finally(() => process.exit(0)));
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return server;
}
