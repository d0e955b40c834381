#!/usr/bin/env node
// The `doorman` ops CLI. Runs the compiled build (dist/server/) when there is one; otherwise (a
// checkout without `npm run build`, or DOORMAN_FROM_SOURCE=1) the TypeScript sources through tsx.
// The checkout's configuration file comes first: `.env` beside package.json (or the file
// DOORMAN_ENV_FILE names; `none` reads none), so the server and every CLI command of one checkout
// share one configuration. The environment wins over the file.
// With OTEL_EXPORTER_OTLP_ENDPOINT set, OpenTelemetry starts next, before the modules it traces
// are loaded; without it, nothing of it is loaded.
// On a Node older than the runtime's floor (package.json's engines), it runs itself again on the
// Node that `npm start` and `npm test` installed into the cache folder (scripts/lib.sh,
// ensure_node), or refuses with one line saying what to install.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const floor = /^>=(\d+)\.(\d+)\.(\d+)$/
  .exec(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node)
  .slice(1)
  .map(Number);
const running = process.versions.node.split('.').map(Number);
const older = (a, b) => (a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2]);
if (older(running, floor)) {
  const { reexecOnPinnedNode } = await import('./pinned-node.js');
  await reexecOnPinnedNode(floor.join('.'), readFileSync(new URL('../.nvmrc', import.meta.url), 'utf8'));
}

const envFile = process.env.DOORMAN_ENV_FILE || fileURLToPath(new URL('../.env', import.meta.url));
if (envFile !== 'none') {
  if (existsSync(envFile)) {
    process.loadEnvFile(envFile);
  } else if (process.env.DOORMAN_ENV_FILE) {
    process.stderr.write(`doorman: DOORMAN_ENV_FILE names ${envFile}, which does not exist\n`);
    process.exit(1);
  }
}

const dist = new URL('../dist/server/cli/main.js', import.meta.url);
const fromDist = existsSync(dist) && !process.env.DOORMAN_FROM_SOURCE;
if (!fromDist) {
  const { register } = await import('tsx/esm/api');
  register();
}
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const tracing = await import(
    new URL(fromDist ? '../dist/server/tracing/start-tracing.js' : '../src/tracing/start-tracing.ts', import.meta.url).href
  );
  tracing.startTracing();
}
await import(fromDist ? dist.href : new URL('../src/cli/main.ts', import.meta.url).href);
