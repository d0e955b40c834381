// GET /metrics on its own listener (METRICS_HOST:METRICS_PORT, loopback by default), never on the
// public API: scrapers reach it inside the deployment's network, API clients never do. A port
// that is taken is logged and skipped: metrics are not worth refusing to serve verdicts for.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from './metrics.js';

export interface MetricsServer {
  port: number | undefined;
  close(): Promise<void>;
}

export async function startMetricsServer(deps: {
  config: Pick<Config, 'metricsPort' | 'metricsHost'>;
  metrics: Metrics;
  logger: Logger;
}): Promise<MetricsServer> {
  if (deps.config.metricsPort === 0) return { port: undefined, close: async () => undefined };
  deps.metrics.collectProcessMetrics();
  const { registry } = deps.metrics;
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`metrics failed: ${err.message}\n`),
    );
  });
  server.keepAliveTimeout = 5000;
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', (err) => {
      deps.logger.error({ err: err.message, port: deps.config.metricsPort }, 'metrics listener not started');
      resolve(false);
    });
    server.listen(deps.config.metricsPort, deps.config.metricsHost, () => resolve(true));
  });
  if (!listening) return { port: undefined, close: async () => undefined };
  const port = (server.address() as AddressInfo).port;
  deps.logger.info({ host: deps.config.metricsHost, port }, `metrics on http://${deps.config.metricsHost}:${port}/metrics`);
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
