// Runs the API: listens at once (answering /health, holding other requests while it warms up),
// runs the graph writer, serves metrics on their own port, and shuts down cleanly on
// SIGTERM/SIGINT: stop accepting, finish in-flight requests (bounded), flush the graph writer,
// let the job workers finish their current job, close the stores, exit 0.
import type http from 'node:http';
import net from 'node:net';
import { createApp } from './app.js';
import { createHttpServer } from './http/http-server.js';
import type { Deps } from './deps.js';
import { redisReady } from './redis/redis-ready.js';
import { watchIntelReloads } from './signals/ip/intel-reload.js';
import { watchDeviceKeys } from './devices/watch-device-keys.js';
import { watchPolicies } from './policies/documents/policy-registry.js';
import { deleteExpiredKeys } from './verdicts/idempotency-store.js';
import { startMetricsServer } from './metrics/metrics-server.js';

const HOUSEKEEPING_MS = 10 * 60_000;
// In-flight requests get this long after SIGTERM; the whole shutdown gets SHUTDOWN_MS.
const DRAIN_MS = 10_000;
const SHUTDOWN_MS = 30_000;

// Runs `stop` once on SIGTERM or SIGINT, then exits 0; exits 1 if it overruns SHUTDOWN_MS.
export function onShutdown(deps: Pick<Deps, 'logger'>, stop: () => Promise<void>): void {
  let stopping = false;
  const run = (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      deps.logger.error('shutdown overran its bound; exiting');
      process.exit(1);
    }, SHUTDOWN_MS).unref();
    stop().then(
      async () => {
        // Traces still buffered (only when tracing is on: src/tracing/start-tracing.ts).
        const flush = (globalThis as Record<symbol, (() => Promise<void>) | undefined>)[Symbol.for('doorman.flushTraces')];
        await flush?.().catch(() => undefined);
        process.exit(0);
      },
      (err: Error) => {
        deps.logger.error({ err: err.message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => run('SIGTERM'));
  process.once('SIGINT', () => run('SIGINT'));
}

// Stops accepting connections and resolves once every request already sent is answered, or after
// DRAIN_MS (then the stragglers are cut). Connections open at SIGTERM stay open until the server
// has been quiet for QUIET_MS: a request a client wrote before the signal may still sit unread in
// the socket while the process is busy, and closing "idle" sockets at once would reset it. Answers
// sent meanwhile carry `Connection: close`, so keep-alive clients reconnect elsewhere.
const QUIET_MS = 500;

function drain(server: http.Server, traffic: { closing: boolean; inFlight: number; lastDone: number }): Promise<void> {
  traffic.closing = true;
  const started = Date.now();
  return new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(poll);
      resolve();
    };
    // Closes only the listener (http.Server#close would also cut idle sockets at once).
    net.Server.prototype.close.call(server, () => finish());
    const poll = setInterval(() => {
      if (Date.now() - started > DRAIN_MS) {
        server.closeAllConnections();
      } else if (traffic.inFlight === 0 && Date.now() - Math.max(traffic.lastDone, started) >= QUIET_MS) {
        server.closeIdleConnections();
      }
    }, 100);
  });
}

export async function serve(
  deps: Deps,
  background: { stop(): Promise<void> } = { stop: async () => undefined },
  options: { graphWriter?: boolean } = {},
): Promise<http.Server> {
  // Velocity and rate limits start working as soon as Redis connects; do not wait long for it.
  await redisReady(deps.redis, 3000).catch((err: Error) => deps.logger.warn({ err: err.message }, 'starting without redis'));
  // Keys and lists are answered from memory once loaded; warming waits for that load.
  const keyWatch = deps.keys.watch(deps);
  const listWatch = deps.lists.watch(deps);
  // Warming starts before listening, so the gate holds the first requests and /health says so.
  const warming = deps.warmup();
  const app = createApp(deps);
  const traffic = { closing: false, inFlight: 0, lastDone: 0 };
  // Server timeouts and Node's own client errors in the contract's shape: http/http-server.ts.
  const server = createHttpServer((req, res) => {
    if (traffic.closing) res.setHeader('Connection', 'close');
    traffic.inFlight += 1;
    res.once('close', () => {
      traffic.inFlight -= 1;
      traffic.lastDone = Date.now();
    });
    app(req, res);
  }, deps.config);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : deps.config.port;
  deps.logger.info(
    { host: deps.config.host, port, node: process.version },
    `doorman listening on http://${deps.config.host}:${port} (Node.js ${process.version})`,
  );
  const metrics = await startMetricsServer(deps);
  if (options.graphWriter !== false) await deps.graphWriter.start();
  await warming;

  const intelWatch = watchIntelReloads(deps);
  const deviceKeyWatch = watchDeviceKeys(deps);
  const policyWatch = watchPolicies(deps);
  // Expired idempotency records are already ignored; deleting them keeps the table small.
  const housekeeping = setInterval(() => {
    deleteExpiredKeys(deps.db, deps.clock.now()).catch((err: Error) => deps.logger.warn({ err: err.message }, 'housekeeping failed'));
  }, HOUSEKEEPING_MS).unref();

  onShutdown(deps, async () => {
    clearInterval(housekeeping);
    await drain(server, traffic);
    deps.logger.info('requests drained');
    await Promise.allSettled([
      intelWatch.close(),
      deviceKeyWatch.close(),
      policyWatch.close(),
      keyWatch.close(),
      listWatch.close(),
      background.stop(),
    ]);
    // deps.close flushes the graph writer, lets a job in progress finish, closes the pools.
    await deps.close();
    await metrics.close();
    deps.logger.info('stopped');
  });
  return server;
}
