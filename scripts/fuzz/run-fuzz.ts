// The fuzz run behind scripts/fuzz.sh: a Doorman server of its own (free loopback port, fresh
// tenant, rate limit raised, DNS pointed at a closed loopback port so no look-up leaves the
// machine), then schemathesis with every check and phase, once with a fixed seed and once with
// a rotating one. Fails on any 5xx, any request left unanswered, a crash or a run past its limit;
// other checks' findings are printed as deliberate (with the reason) or unexpected.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig, repoDir } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { migrateJobQueue, migratePostgres } from '../../src/db/migrate.js';
import { migrateGraph } from '../../src/graph/graph-schema.js';
import { createTenant } from '../../src/tenants/manage-tenants.js';
import { freePort } from '../../test/support/free-port.js';
import { deliberateFailures } from './deliberate-failures.js';
import { readFuzzReport, type FailedCheck } from './fuzz-report.js';

const FIXED_SEED = 20261123;
const seeds = [FIXED_SEED, Number(process.env.FUZZ_SEED ?? randomInt(1, 2 ** 31))];
const examples = Number(process.env.FUZZ_EXAMPLES ?? 60);
const runLimitMs = Number(process.env.FUZZ_RUN_SECONDS ?? 300) * 1000;
const outDir = path.join(repoDir, '.stack', 'fuzz');
const log = (msg: string) => process.stdout.write(`[fuzz] ${msg}\n`);

async function mintTenant() {
  const config = loadConfig();
  const deps = createDeps(config, { logger: pino({ level: 'warn' }) });
  try {
    await migratePostgres(deps.config, deps.logger);
    await migrateJobQueue(deps.config.databaseUrl, deps.logger);
    await migrateGraph(deps.graph, deps.cypher);
    return await createTenant(deps.db, `fuzz-${randomUUID().slice(0, 8)}`);
  } finally {
    await deps.close();
  }
}

async function startServer(port: number, dnsPort: number): Promise<ChildProcess> {
  const serverLog = fs.openSync(path.join(outDir, 'server.log'), 'w');
  const child = spawn('node', ['bin/doorman.js', 'serve'], {
    cwd: repoDir,
    env: {
      ...process.env,
      DOORMAN_FROM_SOURCE: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '10000000',
      AUTH_FAILURES_PER_IP: '10000000',
      DNS_SERVERS: `127.0.0.1:${dnsPort}`,
      PG_POOL_MAX: '8',
      // The gate is for server errors: a verdict refused with 503 because this shared machine is
      // past saturation (README, "Past saturation") is the service saying what it is, not a fault,
      // so the overload gate is off here as in the suite (test/verdicts/overload.test.ts tests it).
      OVERLOAD_LAG_MS: '0',
    },
    stdio: ['ignore', serverLog, serverLog],
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (
      await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`the fuzz server did not come up (see ${path.join(outDir, 'server.log')})`);
}

// One schemathesis run; resolves with its exit code, or 'timeout' once it was ended at the limit.
function runSchemathesis(base: string, seed: number, dir: string, keys: { sk_test: string; pk_test: string }): Promise<number | 'timeout'> {
  const args = [
    '--config-file',
    path.join(repoDir, 'scripts/fuzz/schemathesis.toml'),
    'run',
    `${base}/v1/openapi.json`,
    '--checks',
    'all',
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--seed',
    String(seed),
    '--max-examples',
    String(examples),
    '--workers',
    process.env.FUZZ_WORKERS ?? '2',
    '--generation-database',
    'none',
    '--report',
    'json,ndjson',
    '--report-dir',
    dir,
    '--no-color',
  ];
  const out = fs.openSync(path.join(dir, 'schemathesis.log'), 'w');
  const child = spawn(process.env.SCHEMATHESIS_BIN ?? 'st', args, {
    cwd: dir,
    env: { ...process.env, DOORMAN_FUZZ_SECRET_KEY: keys.sk_test, DOORMAN_FUZZ_PUBLISHABLE_KEY: keys.pk_test },
    stdio: ['ignore', out, out],
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      resolve('timeout');
    }, runLimitMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

function printFindings(failed: FailedCheck[]): { gating: number; unexpected: number } {
  let gating = 0;
  let unexpected = 0;
  const seen = new Set<string>();
  for (const f of failed) {
    const isServerError = f.check === 'not_a_server_error' || f.code.startsWith('ST1');
    const deliberate = isServerError ? undefined : deliberateFailures.find((d) => d.check === f.check && d.matches(f));
    if (isServerError) gating += 1;
    else if (!deliberate) unexpected += 1;
    const kind = isServerError ? 'SERVER ERROR' : deliberate ? 'deliberate' : 'UNEXPECTED (not gating)';
    const key = `${kind} ${f.check} ${f.operation} ${f.status}`;
    if (seen.has(key) && !isServerError) continue;
    seen.add(key);
    log(`  ${kind}: ${f.code} ${f.check} on ${f.operation} -> ${f.status}${deliberate ? ` (${deliberate.reason})` : ''}`);
    if (!deliberate) log(`    request: ${f.request}\n    response: ${f.body}`);
  }
  return { gating, unexpected };
}

async function main(): Promise<number> {
  fs.mkdirSync(outDir, { recursive: true });
  const started = Date.now();
  const tenant = await mintTenant();
  const [port, dnsPort] = [await freePort(), await freePort()];
  const server = await startServer(port, dnsPort);
  let failed = false;
  let cases = 0;
  try {
    for (const seed of seeds) {
      const dir = path.join(outDir, `seed-${seed}`);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      const runStarted = Date.now();
      const code = await runSchemathesis(`http://127.0.0.1:${port}`, seed, dir, tenant.keys);
      if (code === 'timeout' || code > 1) {
        log(
          `seed ${seed}: schemathesis ${code === 'timeout' ? `ran past ${runLimitMs / 1000} s` : `exited ${code}`} (see ${dir}/schemathesis.log)`,
        );
        failed = true;
        continue;
      }
      const report = readFuzzReport(dir);
      cases += report.generated;
      log(
        `seed ${seed}: ${report.generated} cases generated, ${report.sent} requests checked, ${report.failed.length} failed checks, ` +
          `${report.unanswered.length} unanswered, ${Math.round((Date.now() - runStarted) / 1000)} s`,
      );
      const { gating } = printFindings(report.failed);
      for (const error of report.unanswered) log(`  UNANSWERED: ${error}`);
      for (const error of report.fuzzerErrors) log(`  fuzzer error (not the server's, not gating): ${error}`);
      if (gating > 0 || report.unanswered.length > 0) failed = true;
    }
    if (server.exitCode !== null) {
      log(`the server exited (${server.exitCode}) during the run: see ${outDir}/server.log`);
      failed = true;
    }
  } finally {
    server.kill('SIGTERM');
  }
  log(
    `${cases} cases in ${Math.round((Date.now() - started) / 1000)} s; seeds ${seeds.join(', ')} (rerun with FUZZ_SEED=${seeds[1]}); ` +
      `${failed ? 'FAILED' : 'no server error'}`,
  );
  return failed ? 1 : 0;
}

process.exitCode = await main().catch((err: unknown) => {
  log(`error: ${err instanceof Error ? err.stack : String(err)}`);
  return 1;
});
