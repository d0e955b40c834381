// The smoke stage of `npm test`: what a user runs, from the built artefacts and not from source.
// A clean copy of the checkout's committed tree (SMOKE_REF, default HEAD) gets `npm ci` and
// `npm run build` (twice: the build must be idempotent), then loses its dev dependencies as the
// Dockerfile's image does. Its CLI migrates a database of its own, its server serves on a free
// port until /health is 200, one verdict is screened with a key from `tenant create --json`, the
// console, its assets and the SDK are fetched, the CLI runs --help, `analyst add`, `webhook set`
// to a local receiver (allowed by the copy's .env, which the CLI must read as the server does)
// and `policy show`, and SIGTERM must end the server with exit 0 and no error logged.
// Plain Node (no tsx, no dependencies): it must not lean on what it tests.
// Fails loudly: the step that broke, the command and its output's tail. Exit 0 only if all pass.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ref = process.env.SMOKE_REF || 'HEAD';
const started = Date.now();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-smoke-'));
const copy = path.join(work, 'doorman');
const database = `doorman_smoke_${process.pid}`;
const cleanups = [];

const log = (line) => process.stderr.write(`[smoke] ${line}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

class StepFailure extends Error {}

// Runs one named step; a failure names it, with whatever the step attached as evidence.
async function step(name, fn) {
  const t = Date.now();
  try {
    const value = await fn();
    log(`ok   ${name} (${secs(Date.now() - t)})`);
    return value;
  } catch (err) {
    log(`FAILED at step: ${name}`);
    log(
      String(err.message ?? err)
        .split('\n')
        .slice(0, 60)
        .join('\n[smoke]   '),
    );
    throw new StepFailure(name);
  }
}

// A child's environment: only what a login shell has, so nothing of the test run's own
// configuration (DATABASE_URL, REDIS_URL, …) reaches the copy; its .env configures it.
const baseEnv = Object.fromEntries(
  ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'TMPDIR', 'TERM', 'npm_config_cache']
    .filter((k) => process.env[k])
    .map((k) => [k, process.env[k]]),
);

function run(command, args, { cwd = copy, timeoutMs = 120_000, env = {} } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env: { ...baseEnv, ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-40).join('\n');
          reject(new Error(`\`${command} ${args.join(' ')}\` failed (${err.killed ? 'timed out' : `exit ${err.code}`}):\n${tail}`));
        } else resolve({ stdout, stderr });
      },
    );
  });
}

const doorman = async (...args) => {
  const { stdout } = await run('node', ['bin/doorman.js', ...args], { timeoutMs: 60_000 });
  return stdout;
};
const doormanJson = async (...args) => {
  const stdout = await doorman('--json', ...args);
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`\`doorman --json ${args.join(' ')}\` printed something other than one JSON document:\n${stdout}`);
  }
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

async function until(what, fn, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${secs(timeoutMs)} waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

// Every compiled module the server's sources promise must be in the build: a later build step
// that deletes or overwrites part of the server's output (the console bundle once did, in
// dist/console/) is named here, before anything tries to import it.
function checkServerBuild() {
  const tsconfig = JSON.parse(fs.readFileSync(path.join(copy, 'tsconfig.json'), 'utf8'));
  const rootDir = path.join(copy, tsconfig.compilerOptions.rootDir ?? 'src');
  const outDir = path.join(copy, tsconfig.compilerOptions.outDir);
  const sources = fs.readdirSync(rootDir, { recursive: true }).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const missing = sources.map((f) => f.replace(/\.ts$/, '.js')).filter((f) => !fs.existsSync(path.join(outDir, f)));
  expect(sources.length > 0, `no TypeScript sources under ${rootDir}`);
  expect(
    missing.length === 0,
    `build collision: ${missing.length} of ${sources.length} compiled server modules are missing from ${path.relative(copy, outDir)}/ after \`npm run build\`, ` +
      `so another build step removed or overwrote them: ${missing
        .slice(0, 8)
        .map((f) => path.join(path.relative(copy, outDir), f))
        .join(', ')}${missing.length > 8 ? ', …' : ''}`,
  );
  return sources.length;
}

function pgArgs(url) {
  const u = new URL(url);
  return [
    '-X',
    '-q',
    '-v',
    'ON_ERROR_STOP=1',
    '-h',
    u.hostname || 'localhost',
    '-p',
    u.port || '5432',
    ...(u.username ? ['-U', decodeURIComponent(u.username)] : []),
    '-d',
    'postgres',
  ];
}

// A local webhook receiver: the CLI must accept it (WEBHOOK_ALLOW_PRIVATE from the copy's .env).
function startReceiver() {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function main() {
  const adminDbUrl = process.env.DATABASE_URL || 'postgres://localhost:5432/doorman_test';
  const dbUrl = new URL(adminDbUrl);
  dbUrl.pathname = `/${database}`;
  const redisUrl = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379/1');
  // Redis database 2: neither the demo's (0) nor the suite's (1).
  redisUrl.pathname = '/2';
  if (redisUrl.protocol !== 'redis:') redisUrl.href = 'redis://127.0.0.1:6379/2';

  log(`a clean copy of ${ref} in ${copy}`);
  await step(`copy the committed tree (git archive ${ref})`, async () => {
    fs.mkdirSync(copy);
    await new Promise((resolve, reject) => {
      const archive = spawn('git', ['archive', '--format=tar', ref], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
      const untar = spawn('tar', ['-x', '-C', copy], { stdio: ['pipe', 'ignore', 'pipe'] });
      archive.stdout.pipe(untar.stdin);
      let errors = '';
      archive.stderr.on('data', (d) => {
        errors += d;
      });
      untar.stderr.on('data', (d) => {
        errors += d;
      });
      untar.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git archive | tar failed: ${errors}`))));
    });
    expect(fs.existsSync(path.join(copy, 'package.json')), 'the copy has no package.json');
  });
  await step('npm ci', () => run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { timeoutMs: 300_000 }));
  const modules = await step('npm run build, and every server module is in the build', async () => {
    await run('npm', ['run', '--silent', 'build'], { timeoutMs: 300_000 });
    return checkServerBuild();
  });
  await step(`npm run build again (idempotent), still all ${modules} modules, console and SDK bundles`, async () => {
    await run('npm', ['run', '--silent', 'build'], { timeoutMs: 300_000 });
    checkServerBuild();
  });
  await step('npm prune --omit=dev (the image has no dev dependencies)', () =>
    run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], { timeoutMs: 120_000 }),
  );

  const port = await freePort();
  await step('write the checkout configuration (.env)', () => {
    fs.writeFileSync(
      path.join(copy, '.env'),
      [
        `DATABASE_URL=${dbUrl.href}`,
        `REDIS_URL=${redisUrl.href}`,
        ...['NEO4J_URI', 'NEO4J_USER', 'NEO4J_PASSWORD'].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`),
        `PORT=${port}`,
        'METRICS_PORT=0',
        'DEMO_PAGES=true',
        'WEBHOOK_ALLOW_PRIVATE=true',
        `SECRETS_KEY=${randomBytes(32).toString('base64')}`,
        'LOG_LEVEL=info',
        '',
      ].join('\n'),
    );
  });

  await step(`create the database ${database}`, () =>
    run('psql', [...pgArgs(adminDbUrl), '-c', `DROP DATABASE IF EXISTS "${database}"`, '-c', `CREATE DATABASE "${database}"`], {
      cwd: work,
    }),
  );
  cleanups.push(() =>
    run('psql', [...pgArgs(adminDbUrl), '-c', `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`], { cwd: work }).catch(() => undefined),
  );

  await step('doorman --help (from dist/)', async () => {
    const out = await doorman('--help');
    expect(/Usage: doorman/.test(out), `--help printed no usage:\n${out}`);
  });
  await step('doorman migrate', async () => {
    const out = await doormanJson('migrate');
    expect(out.ok === true, `migrate printed ${JSON.stringify(out)}`);
  });
  const tenant = await step('doorman tenant create --json', async () => {
    const out = await doormanJson('tenant', 'create', '--name', 'smoke');
    expect(/^sk_test_/.test(out.keys?.sk_test ?? ''), `no secret test key in ${JSON.stringify(out)}`);
    return out;
  });

  const server = await step(`doorman serve on :${port} until /health is 200`, async () => {
    const child = spawn('node', ['bin/doorman.js', 'serve'], { cwd: copy, env: baseEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    const collect = (d) => output.push(...String(d).split('\n').filter(Boolean));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
    });
    const early = exited.then(({ code, signal }) => {
      throw new Error(`the server exited (code ${code}, signal ${signal}) before it was healthy:\n${output.slice(-30).join('\n')}`);
    });
    await Promise.race([
      early,
      until(
        'GET /health to answer 200',
        async () => ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200 ? true : undefined),
        90_000,
      ).catch((err) => {
        throw new Error(`${err.message}\n${output.slice(-30).join('\n')}`);
      }),
    ]);
    early.catch(() => undefined);
    return { child, output, exited };
  });
  const base = `http://127.0.0.1:${port}`;

  await step("POST /v1/verdict with the tenant's secret test key", async () => {
    const res = await fetch(`${base}/v1/verdict`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tenant.keys.sk_test}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ event_type: 'signup', email: 'ada@example.org', ip: '203.0.113.9', external_user_id: 'smoke_1' }),
    });
    const body = await res.json();
    expect(res.status === 200, `status ${res.status}: ${JSON.stringify(body)}`);
    expect(
      ['allow', 'review', 'block'].includes(body.verdict) && /^\d{4}-\d{2}-\d{2}\.\d+$/.test(body.policy_version),
      `not a verdict: ${JSON.stringify(body)}`,
    );
    const stored = await fetch(`${base}/v1/events/${body.id}`, { headers: { Authorization: `Bearer ${tenant.keys.sk_test}` } });
    expect(stored.status === 200, `GET /v1/events/${body.id}: ${stored.status}`);
  });
  await step('GET /console and every asset it names', async () => {
    const res = await fetch(`${base}/console`);
    const html = await res.text();
    expect(
      res.status === 200 && /text\/html/.test(res.headers.get('content-type') ?? ''),
      `GET /console: ${res.status} ${html.slice(0, 300)}`,
    );
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length >= 2, `the console page names no script and stylesheet:\n${html}`);
    for (const asset of assets) {
      const a = await fetch(`${base}${asset}`);
      expect(a.status === 200 && (await a.arrayBuffer()).byteLength > 0, `GET ${asset}: ${a.status}`);
    }
  });
  await step('GET /sdk/doorman.js', async () => {
    const res = await fetch(`${base}/sdk/doorman.js`);
    const body = await res.text();
    expect(
      res.status === 200 && /javascript/.test(res.headers.get('content-type') ?? '') && body.length > 1000,
      `GET /sdk/doorman.js: ${res.status}, ${body.length} bytes`,
    );
  });
  await step('GET /demo/device (the .env turns the demo pages on; the page is a built file)', async () => {
    const res = await fetch(`${base}/demo/device`);
    const body = await res.text();
    expect(
      res.status === 200 && /html/.test(res.headers.get('content-type') ?? '') && body.includes('/sdk/doorman.js'),
      `GET /demo/device: ${res.status}, ${body.length} bytes`,
    );
  });
  await step('doorman analyst add', async () => {
    const out = await doormanJson('analyst', 'add', '--tenant', tenant.tenant_id, '--email', 'smoke-admin@example.org', '--role', 'admin');
    expect(/\/console\/welcome#token=/.test(out.sign_in_url ?? ''), `analyst add printed ${JSON.stringify(out)}`);
  });
  await step('doorman webhook set to a local receiver (the .env allows it, for the CLI as for the server)', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => new Promise((r) => receiver.close(() => r())));
    const out = await doormanJson(
      'webhook',
      'set',
      '--tenant',
      tenant.tenant_id,
      '--mode',
      'test',
      '--url',
      `http://127.0.0.1:${receiver.address().port}/hook`,
    );
    expect(/^whsec_/.test(out.secret ?? ''), `webhook set printed ${JSON.stringify(out)}`);
    // Stored sealed: the database holds no secret in the plain.
    const { stdout } = await run(
      'psql',
      [
        ...pgArgs(dbUrl.href).slice(0, -2),
        '-d',
        database,
        '-Atc',
        `SELECT count(*) FROM webhook_secrets WHERE secret IS NOT NULL OR sealed LIKE '%${out.secret}%'`,
      ],
      { cwd: work },
    );
    expect(stdout.trim() === '0', `the webhook secret is stored in the plain (${stdout.trim()} rows)`);
  });
  await step('doorman policy show', async () => {
    const out = await doormanJson('policy', 'show', '--tenant', tenant.tenant_id, '--mode', 'test');
    expect(typeof out === 'object' && out !== null && Object.keys(out).length > 0, `policy show printed ${JSON.stringify(out)}`);
  });
  await step('SIGTERM: the server exits 0, having logged no error', async () => {
    process.kill(server.child.pid, 'SIGTERM');
    const { code, signal } = await Promise.race([
      server.exited,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`no exit 35 s after SIGTERM:\n${server.output.slice(-20).join('\n')}`)), 35_000).unref(),
      ),
    ]);
    expect(code === 0, `exit code ${code} (signal ${signal}) after SIGTERM:\n${server.output.slice(-20).join('\n')}`);
    // An operator alerts on error lines (level 50 and above): a clean start, a verdict and a
    // clean stop must log none, and warm-up must not have failed a step.
    const errors = server.output.filter((l) => {
      try {
        return JSON.parse(l).level >= 50;
      } catch {
        return false;
      }
    });
    expect(errors.length === 0, `the server logged ${errors.length} error line(s):\n${errors.slice(0, 5).join('\n')}`);
    const failedWarmUp = server.output.filter((l) => l.includes('warm-up step failed'));
    expect(failedWarmUp.length === 0, `warm-up failed a step:\n${failedWarmUp.join('\n')}`);
  });
}

let failed = false;
try {
  await main();
} catch (err) {
  failed = true;
  if (!(err instanceof StepFailure)) log(`FAILED: ${err.stack ?? err}`);
} finally {
  const t = Date.now();
  for (const cleanup of cleanups.reverse()) await cleanup();
  fs.rmSync(work, { recursive: true, force: true });
  log(`cleaned up in ${secs(Date.now() - t)}`);
}
if (failed) {
  log(`the smoke stage FAILED after ${secs(Date.now() - started)}`);
  process.exit(1);
}
log(`the built service and CLI work: all steps passed in ${secs(Date.now() - started)}`);
process.exit(0);
