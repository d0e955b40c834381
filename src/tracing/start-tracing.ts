// OpenTelemetry traces, only when OTEL_EXPORTER_OTLP_ENDPOINT is set: bin/doorman.js imports this
// module before anything else (so the hooks see express, pg, ioredis and node:http load) and not
// at all otherwise, so a process without the variable loads no SDK and patches nothing. The SDK
// reads the standard OTEL_* variables itself (endpoint, headers, OTEL_SERVICE_NAME, sampling);
// the Neo4j driver is traced by src/tracing/traced-graph-driver.ts.
import { register } from 'node:module';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';

export const FLUSH_TRACES = Symbol.for('doorman.flushTraces');

export function startTracing(): void {
  // ES modules are patched through import-in-the-middle's loader hook.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const sdk = new NodeSDK({
    serviceName: 'doorman',
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      // Health probes and scrapes would be most of the traces.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/health' }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  // Shutdown (src/server.ts) sends what is still buffered before the process exits.
  (globalThis as Record<symbol, unknown>)[FLUSH_TRACES] = () => sdk.shutdown();
}
