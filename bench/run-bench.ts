// `npm run bench`: verdict latency and throughput against the I/O floor, and cost as stored
// data grows. Needs the local stack up (scripts/bench.sh brings it up and builds). Every load
// targets loopback, is bounded in count and time, and stops by itself. Writes
// docs/benchmarks.md and docs/benchmarks-latency.svg.
import { spawn, type ChildProcess } from 'node:child_process';
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { createTenant } from '../src/tenants/manage-tenants.js';
import { startDnsStandIn } from '../test/support/dns-stand-in.js';
import { freePort } from '../test/support/free-port.js';
import { closedLoop, openLoop, type LoadResult, type NextRequest } from './load-generator.js';
import { sampleProcess } from './process-stats.js';
import { removeGraph, seedEvents, seedGraph, settle } from './seed-growth.js';
import { probeReadYourWrites, type ProbeResult } from './read-your-writes.js';
import { BENCH_DOMAINS, createContendedTraffic, createTraffic } from './traffic.js';
import { writeReport, type BacktestResult, type Run } from './report.js';
import { runGraphQuality } from './graph-quality/run-graph-quality.js';

const QUICK = process.env.BENCH_QUICK === '1';
const RATES = QUICK ? [100, 200] : [100, 200, 400];
const STEP_SECONDS = QUICK ? 5 : 20;
const SUSTAIN_SECONDS = QUICK ? 10 : 60;
const SATURATION_SECONDS = QUICK ? 5 : 15;
const SATURATION_CONCURRENCY = 32;
const GROWTH = QUICK ? [10_000, 100_000] : [10_000, 1_000_000];
const CONTENDED_RATE = 150;
// The read-your-writes probe runs beside the measured load: pairs per second.
const PROBE_RATE = 5;
// The contract's 600/min per key would cap one key at 10 req/s; the bench raises it (and says so).
const RATE_LIMIT = '10000000';

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

async function startProcess(args: string[], env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const child = spawn('node', args, { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    const up = await fetch(`http://127.0.0.1:${port}/v1/verdict`, { method: 'POST', body: '{}' }).then(() => true, () => false);
    if (up) return child;
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

// Every step starts from an empty graph outbox: the links the previous step left (an overload,
// a saturation run, the floor's rows, which the verdict server's writer applies) are not charged
// to the next step. How long the writer took is logged: its apply rate under no other load.
let outboxDb: { query: (sql: string) => Promise<{ rows: { n: number }[] }> } | undefined;
async function drainOutbox(label: string): Promise<void> {
  if (!outboxDb) return;
  const depth = async () => (await outboxDb!.query('SELECT count(*)::int AS n FROM graph_outbox WHERE failed_at IS NULL')).rows[0]!.n;
  const started = Date.now();
  const first = await depth();
  let left = first;
  while (left > 0 && Date.now() - started < 180_000) {
    await new Promise((r) => setTimeout(r, 100));
    left = await depth();
  }
  if (first > 0) {
    const seconds = (Date.now() - started) / 1000;
    log(`before ${label}: outbox ${first} rows, ${left === 0 ? `drained in ${seconds.toFixed(1)} s (${Math.round(first / seconds)} rows/s)` : `${left} left after 180 s`}`);
  }
}

// The graph writer runs in a `doorman worker` of its own (issue 26), so the verdict server's CPU
// and the floor's are the same work's (the floor's links are applied by that worker too); the
// worker's CPU during each step is reported beside them.
let writerPid: number | undefined;
async function measure(label: string, child: ChildProcess, load: () => Promise<LoadResult>, drain = true): Promise<Run> {
  if (drain) await drainOutbox(label);
  const stats = sampleProcess(child.pid!);
  const writerStats = writerPid === undefined ? undefined : sampleProcess(writerPid);
  const result = await load();
  const { cpuPercent, cpuSeconds, rssMbMax } = stats();
  const writerCpuPercent = writerStats?.().cpuPercent;
  // CPU per answered request (ms): the process's CPU time over the requests answered 200.
  const answered = result.ok;
  const cpuMsPerRequest = answered > 0 ? Number(((cpuSeconds * 1000) / answered).toFixed(2)) : 0;
  log(`${label}: ${result.throughput} req/s ok, p50 ${result.p50} ms, p90 ${result.p90}, p99 ${result.p99}, max ${result.max}, errors ${result.errors}, cpu ${cpuPercent}% (${cpuMsPerRequest} ms/request), writer cpu ${writerCpuPercent ?? '-'}%, rss ${rssMbMax} MB`);
  return { label, ...result, cpuPercent, cpuMsPerRequest, ...(writerCpuPercent !== undefined && { writerCpuPercent }), rssMbMax };
}

async function main(): Promise<void> {
  const started = Date.now();
  // The harness's own pool bulk-loads and vacuums: longer than the service's query timeout.
  const config = { ...loadConfig(), pgQueryTimeoutMs: 600_000 };
  const deps = createDeps(config);
  outboxDb = deps.db as unknown as typeof outboxDb;
  const dns = await startDnsStandIn(Object.fromEntries(BENCH_DOMAINS.map((d) => [d, { mx: [{ exchange: 'mx.bench.net', priority: 10 }] }])));
  const tenant = await createTenant(deps.db, `bench-${Date.now()}`);
  const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
  const env = { RATE_LIMIT_PER_MINUTE: RATE_LIMIT, LOG_LEVEL: 'warn', DNS_SERVERS: dns.server, DEVICE_TOKEN_TTL_SECONDS: '3600' };

  const verdictPort = await freePort();
  const verdict = await startProcess(['bin/doorman.js', 'serve', '--no-worker', '--no-graph-writer'], env, verdictPort);
  const writer = spawn('node', ['bin/doorman.js', 'worker'], { env: { ...process.env, ...env, METRICS_PORT: '0' }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(writer);
  writerPid = writer.pid;
  const floorPort = await freePort();
  const floor = await startProcess(['--import', 'tsx', 'bench/floor-server.ts'], env, floorPort);

  log('minting device tokens');
  const tokens: string[] = [];
  for (let i = 0; i < 1000; i++) {
    const res = await fetch(`http://127.0.0.1:${verdictPort}/v1/device`, {
      method: 'POST', headers: { authorization: `Bearer ${tenant.keys.pk_test}`, 'content-type': 'application/json' },
      body: JSON.stringify({ components: { canvas: `c${i}`, screen: '1920x1080' } }),
    });
    tokens.push(((await res.json()) as { device_token: string }).device_token);
  }
  const asRequest = (next: () => Record<string, unknown>): NextRequest =>
    () => ({ path: '/v1/verdict', headers: { authorization: `Bearer ${tenant.keys.sk_test}` }, body: JSON.stringify(next()) });
  const traffic = (seed: number) => asRequest(createTraffic(seed, tokens));
  const contended = (seed: number) => asRequest(createContendedTraffic(seed, tokens));
  const origin = `http://127.0.0.1:${verdictPort}`;
  const probe = (seconds: number) => probeReadYourWrites(origin, tenant.keys.sk_test, deps.graph, scope, PROBE_RATE, seconds);
  // Load and probe at once; the probe's figures go with the run's.
  const withProbe = async (label: string, seconds: number, load: () => Promise<LoadResult>): Promise<{ run: Run; probe: ProbeResult }> => {
    await drainOutbox(label);
    const [run, probed] = await Promise.all([measure(label, verdict, load, false), probe(seconds)]);
    log(`${label}: link lag p50 ${probed.lagP50} ms, p99 ${probed.lagP99} ms; next event 100 ms later saw the link in ${probed.seenPercent}% of ${probed.pairs}`);
    return { run, probe: probed };
  };

  log('warming up');
  await openLoop(`http://127.0.0.1:${verdictPort}`, traffic(1), 100, QUICK ? 2 : 5);
  await openLoop(`http://127.0.0.1:${floorPort}`, traffic(1), 100, QUICK ? 2 : 5);

  const rates: { rate: number; verdict: Run; floor: Run }[] = [];
  for (const rate of RATES) {
    const v = await measure(`verdict @${rate}/s`, verdict, () => openLoop(`http://127.0.0.1:${verdictPort}`, traffic(rate), rate, STEP_SECONDS));
    const f = await measure(`floor @${rate}/s`, floor, () => openLoop(`http://127.0.0.1:${floorPort}`, traffic(rate), rate, STEP_SECONDS));
    rates.push({ rate, verdict: v, floor: f });
  }
  const saturation = {
    verdict: await measure('verdict saturation', verdict, () => closedLoop(`http://127.0.0.1:${verdictPort}`, traffic(7), SATURATION_CONCURRENCY, SATURATION_SECONDS)),
    floor: await measure('floor saturation', floor, () => closedLoop(`http://127.0.0.1:${floorPort}`, traffic(7), SATURATION_CONCURRENCY, SATURATION_SECONDS)),
  };
  const contention = {
    open: await withProbe(`contended @${CONTENDED_RATE}/s`, STEP_SECONDS, () => openLoop(origin, contended(11), CONTENDED_RATE, STEP_SECONDS)),
    saturation: await measure('contended saturation', verdict, () => closedLoop(origin, contended(13), SATURATION_CONCURRENCY, SATURATION_SECONDS)),
  };

  const growth: { events: number; run: Run; probe: ProbeResult }[] = [];
  let loaded = 0;
  for (const size of GROWTH) {
    log(`loading stored history up to ${size} events`);
    const t = Date.now();
    await seedEvents(deps, scope, loaded, size);
    await seedGraph(deps, scope, loaded, size);
    loaded = size;
    await settle(deps);
    log(`loaded and settled in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    // Unmeasured: caches warm up on the grown data first.
    await openLoop(`http://127.0.0.1:${verdictPort}`, traffic(size + 1), 200, QUICK ? 3 : 10);
    growth.push({ events: size, ...(await withProbe(`verdict @200/s, ${size} stored`, SUSTAIN_SECONDS, () => openLoop(origin, traffic(size), 200, SUSTAIN_SECONDS))) });
  }

  await Promise.all([stop(verdict), stop(floor), stop(writer)]);
  // Policy backtests (issue 13): stored events evaluated per second, in a tenant of its own.
  log('backtest throughput');
  const backtest = JSON.parse(execSync(`node --import tsx bench/backtest-throughput.ts ${QUICK ? 30_000 : 300_000}`, {
    env: process.env, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20,
  }).toString().trim().split('\n').at(-1)!) as BacktestResult;
  log('removing the run\'s graph data');
  await removeGraph(deps, scope);
  await dns.close();
  await deps.close();
  // The identity graph's quality against ground truth (docs/graph-quality.md), in a tenant of its
  // own on this database (the step deletes its graph when it ends).
  log('graph quality (bench/graph-quality)');
  const graphQuality = await runGraphQuality({ label: 'bench', scale: QUICK ? 0.25 : 1 });

  writeReport({
    quick: QUICK,
    machine: { cores: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), cpu: os.cpus()[0]?.model ?? '', load: os.loadavg().map((l) => l.toFixed(1)).join(' ') },
    versions: {
      node: process.version,
      postgres: execSync('psql --version').toString().trim(),
      redis: execSync('redis-server --version').toString().trim().split(' ').slice(0, 3).join(' '),
      neo4j: '5.26.30 Community',
    },
    settings: { stepSeconds: STEP_SECONDS, sustainSeconds: SUSTAIN_SECONDS, saturationSeconds: SATURATION_SECONDS, concurrency: SATURATION_CONCURRENCY, rateLimit: RATE_LIMIT },
    rates, saturation, contention, growth, backtest, graphQuality,
    minutes: (Date.now() - started) / 60_000,
  });
  log(`done in ${((Date.now() - started) / 60_000).toFixed(1)} min; wrote docs/benchmarks.md`);
}

// Children must not outlive a failed run.
let children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));
await main();
