#!/usr/bin/env node
// The `doorman` ops CLI. Runs the compiled build when there is one; otherwise (a checkout
// without `npm run build`, or DOORMAN_FROM_SOURCE=1) the TypeScript sources through tsx.
// With OTEL_EXPORTER_OTLP_ENDPOINT set, OpenTelemetry starts first, before the modules it traces
// are loaded; without it, nothing of it is loaded.
import { existsSync } from 'node:fs';

const dist = new URL('../dist/cli/main.js', import.meta.url);
const fromDist = existsSync(dist) && !process.env.DOORMAN_FROM_SOURCE;
if (!fromDist) {
  const { register } = await import('tsx/esm/api');
  register();
}
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const tracing = await import(new URL(fromDist ? '../dist/tracing/start-tracing.js' : '../src/tracing/start-tracing.ts', import.meta.url).href);
  tracing.startTracing();
}
await import(fromDist ? dist.href : new URL('../src/cli/main.ts', import.meta.url).href);
