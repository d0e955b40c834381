// Runs the mocha suite in shards side by side: its tests mostly wait (on servers they start, on
// the graph writer, on Chromium), so two mocha processes on two cores take about half the wall
// time of one. Each shard is a whole mocha run of its own (root hooks, graph writer, replay
// check) on stores of its own: shard 1 uses DATABASE_URL and REDIS_URL as given (doorman_test,
// Redis database 1), shard k > 1 a database named <that>_s<k> (created here, migrated by the root
// hook) and Redis database 2 + k (2 and 3 are the bench's and the soak's). Neo4j is one
// database, shared the way every test shares it: by tenant, and since migration 0022 each
// Postgres database's writers have fences of their own.
//
// Files go to shards longest first, each to the shard with the least work so far, by the time the
// file took in this checkout's last run (.stack/test-file-seconds.json), else by the committed
// estimate (test/support/test-file-seconds.json, refreshed with UPDATE_TEST_FILE_SECONDS=1), else
// by a guess for a new file. Shard 1's output streams; the others' follow it whole, then one
// summary for the suite: the slowest tests and the line CI reads.
//
// Usage: node scripts/test-shards.mjs [mocha file or glob]...   (TEST_SHARDS=N, default 2; 1 runs
// one plain mocha process)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';

const require = createRequire(import.meta.url);
const { closing } = require('../test/support/summary-reporter.cjs');

const COMMITTED = 'test/support/test-file-seconds.json';
const LOCAL = path.join(process.env.STACK_DIR || '.stack', 'test-file-seconds.json');
const NEW_FILE_GUESS = 5;

const patterns = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['test/**/*.test.ts'];
const files = [...new Set(patterns.flatMap((p) => (fs.existsSync(p) && fs.statSync(p).isFile() ? [p] : fs.globSync(p))))].sort();
const wanted = Number(process.env.TEST_SHARDS ?? Math.min(2, os.availableParallelism()));
let shards = Math.max(1, Math.min(Number.isInteger(wanted) ? wanted : 1, files.length));

const mochaBin = path.join('node_modules', 'mocha', 'bin', 'mocha.js');

function readSeconds(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

function assign() {
  const known = { ...readSeconds(COMMITTED), ...readSeconds(LOCAL) };
  const load = Array.from({ length: shards }, () => ({ seconds: 0, files: [] }));
  for (const file of [...files].sort((a, b) => (known[b] ?? NEW_FILE_GUESS) - (known[a] ?? NEW_FILE_GUESS) || a.localeCompare(b))) {
    const lightest = load.reduce((best, s) => (s.seconds < best.seconds ? s : best));
    lightest.seconds += known[file] ?? NEW_FILE_GUESS;
    lightest.files.push(file);
  }
  return load;
}

// The shard's Postgres database and Redis database (shard 1: the ones given).
function storesOf(k) {
  const database = new URL(process.env.DATABASE_URL || 'postgres://localhost:5432/doorman_test');
  const redis = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379/1');
  if (k === 1) return { databaseUrl: database.href, redisUrl: redis.href };
  database.pathname = `${database.pathname.replace(/^\//, '')}_s${k}`;
  if (redis.protocol === 'redis:') redis.pathname = `/${2 + k}`;
  return { databaseUrl: database.href, redisUrl: redis.href };
}

// A client of the server's `postgres` database, for the duration of fn.
async function withAdmin(fn) {
  const admin = new URL(storesOf(1).databaseUrl);
  admin.pathname = '/postgres';
  // libpq's rule, as the service's configuration applies it: no user in the URL means the OS user.
  if (!admin.username) admin.username = encodeURIComponent(os.userInfo().username);
  const client = new pg.Client({ connectionString: admin.href });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function ensureDatabase(url) {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  return withAdmin(async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  });
}

// Each shard runs servers, workers and pools of its own: up to about 70 connections at its peak
// (pg_stat_activity sampled every 0.5 s through a whole run), so 120 leaves room. A Postgres with
// less room than the shards need runs fewer of them, and says so, rather than failing tests with
// "too many clients".
const PER_SHARD_CONNECTIONS = 120;
function roomFor(wanted) {
  return withAdmin(async (client) => {
    const {
      rows: [row],
    } = await client.query(
      `SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
              - (SELECT count(*)::int FROM pg_stat_activity) AS free`,
    );
    const fits = Math.max(1, Math.floor(row.free / PER_SHARD_CONNECTIONS));
    if (fits < wanted)
      console.log(
        `[test] Postgres has room for ${row.free} more connections, ${PER_SHARD_CONNECTIONS} a shard: ${fits} shard(s) instead of ${wanted} (scripts/postgres.sh raises max_connections on its own cluster)`,
      );
    return Math.min(wanted, fits);
  });
}

async function runShards() {
  shards = await roomFor(shards);
  if (shards === 1) return runOne();
  const plan = assign();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-shards-'));
  const started = Date.now();
  console.log(
    `[test] ${files.length} files in ${shards} shards: ${plan.map((s, i) => `shard ${i + 1} ${s.files.length} files (~${Math.round(s.seconds)} s)`).join(', ')}`,
  );
  const children = [];
  const runs = plan.map(async (shard, i) => {
    const k = i + 1;
    const { databaseUrl, redisUrl } = storesOf(k);
    if (k > 1) await ensureDatabase(databaseUrl);
    const summaryFile = path.join(dir, `shard-${k}.json`);
    const logFile = path.join(dir, `shard-${k}.log`);
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      DOORMAN_TEST_SUMMARY_FILE: summaryFile,
      DOORMAN_TEST_SHARD: `shard ${k} of ${shards}`,
    };
    const out = k === 1 ? 'inherit' : fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, [mochaBin, ...shard.files], { env, stdio: ['ignore', out, out] });
    children.push(child);
    const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
    return { k, code, summaryFile, logFile };
  });
  const stop = (signal) => {
    for (const child of children) child.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const results = await Promise.all(runs);

  const total = {
    passes: 0,
    failures: 0,
    pending: 0,
    reasons: {},
    durations: [],
    failed: [],
    files: {},
    node: process.version,
    seconds: (Date.now() - started) / 1000,
    shards,
  };
  for (const r of results) {
    if (r.k > 1) process.stdout.write(`\n[test] shard ${r.k} of ${shards}:\n${fs.readFileSync(r.logFile, 'utf8')}`);
    let summary;
    try {
      summary = JSON.parse(fs.readFileSync(r.summaryFile, 'utf8'));
    } catch {
      // A shard that ended before its reporter's last word (a crash) counts as a failure.
      summary = {
        passes: 0,
        failures: 1,
        pending: 0,
        reasons: {},
        durations: [],
        failed: [{ title: `shard ${r.k} ended (exit ${r.code}) without its summary`, file: 'its log above', error: '' }],
        files: {},
      };
      process.stdout.write(`\n[test] shard ${r.k} of ${shards} ended (exit ${r.code}) without its summary\n`);
    }
    total.passes += summary.passes;
    total.failures += summary.failures + (r.code !== 0 && summary.failures === 0 ? 1 : 0);
    if (r.code !== 0 && summary.failures === 0)
      total.failed.push({ title: `shard ${r.k} exited ${r.code} with no test failed`, file: 'its log above', error: '' });
    total.pending += summary.pending;
    for (const [reason, n] of Object.entries(summary.reasons)) total.reasons[reason] = (total.reasons[reason] ?? 0) + n;
    total.durations.push(...summary.durations);
    total.failed.push(...(summary.failed ?? []));
    Object.assign(total.files, summary.files);
    if (summary.node) total.node = summary.node;
  }
  process.stdout.write(`\n[test] shards: ${results.map((r) => `${r.k}: ${readSecondsOf(r.summaryFile)} s`).join(', ')}\n`);
  process.stdout.write(closing(total));
  // What each file took, for the next run's balance (a partial run updates only its files).
  const seconds = Object.fromEntries(Object.entries(total.files).map(([f, ms]) => [f, Math.round(ms / 100) / 10]));
  fs.mkdirSync(path.dirname(LOCAL), { recursive: true });
  fs.writeFileSync(LOCAL, `${JSON.stringify({ ...readSeconds(LOCAL), ...seconds }, null, 1)}\n`);
  if (process.env.UPDATE_TEST_FILE_SECONDS)
    fs.writeFileSync(
      COMMITTED,
      `${JSON.stringify(Object.fromEntries(Object.entries({ ...readSeconds(COMMITTED), ...seconds }).sort()), null, 1)}\n`,
    );
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(total.failures > 0 ? 1 : 0);
}

function readSecondsOf(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')).seconds.toFixed(0);
  } catch {
    return '?';
  }
}

// One shard: one plain mocha process.
function runOne() {
  const child = spawn(process.execPath, [mochaBin, ...files], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (shards === 1) runOne();
else await runShards();
