// What the bench's runs share (run-bench.ts, runtime-compare.ts): the harness's own store
// handles, the DNS stand-in, the run's tenant, the server processes it starts (waited for until
// they answer, stopped at the end, and never left running when the run ends or fails), device
// tokens and the traffic built on them, measuring one step of load against one process, and a
// CPU hog that holds one core for a step.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { createTenant } from '../src/tenants/manage-tenants.js';
import { startDnsStandIn } from '../test/support/dns-stand-in.js';
import type { LoadResult, NextRequest } from './load-generator.js';
import { sampleProcess } from './process-stats.js';
import type { Run } from './report.js';
import { BENCH_DOMAINS, createContendedTraffic, createTraffic } from './traffic.js';

export const QUICK = process.env.BENCH_QUICK === '1';
// The verdict-against-floor steps: open-loop rates, then a closed loop at saturation. (The quick
// run keeps 400/s too: the targets table reads it.)
export const RATES = QUICK ? [100, 200, 400] : [100, 200, 400];
export const STEP_SECONDS = QUICK ? 5 : 20;
export const SATURATION_SECONDS = QUICK ? 5 : 15;
export const SATURATION_CONCURRENCY = 32;
// The graph-read steps' rate: the read alone, and the verdict with one core hogged.
export const HOGGED_RATE = 200;
// Unmeasured traffic at 100 req/s through each server before the first step.
export const WARM_UP_SECONDS = QUICK ? 2 : 5;
// The contract's 600/min per key would cap one key at 10 req/s; the bench raises it (and says so).
export const RATE_LIMIT = '10000000';
export const DEVICE_TOKENS = 1000;

export const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

export type Traffic = (seed: number) => NextRequest;

export interface BenchRig {
  deps: Deps;
  tenant: Awaited<ReturnType<typeof createTenant>>;
  scope: { tenantId: string; mode: 'test' };
  // The servers' environment on top of the harness's own (bench.sh sets the stores and the key).
  env: Record<string, string>;
  // `node` is the runtime that runs the process: `node` on PATH unless named.
  startServer(args: string[], port: number, node?: string, env?: Record<string, string>): Promise<ChildProcess>;
  // The graph writer, a `doorman worker` of its own: its CPU is reported beside every step.
  startWriter(node?: string): ChildProcess;
  stop(child: ChildProcess): Promise<void>;
  drainOutbox(label: string): Promise<void>;
  measure(label: string, child: ChildProcess, load: () => Promise<LoadResult>, drain?: boolean): Promise<Run>;
  // Mints the device tokens from a running verdict server, then builds traffic on them.
  mintTraffic(origin: string): Promise<{ traffic: Traffic; contended: Traffic }>;
  // A child busy-looping on one core (core 0 through taskset where there is one) for `seconds`
  // + 2 s, ending by itself; stopHog kills it by its pid at the end of the step anyway.
  startHog(seconds: number): ChildProcess;
  stopHog(hog: ChildProcess): Promise<void>;
  close(): Promise<void>;
}

// Children must not outlive the run: killed when it exits, and a run stopped by a signal exits.
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

export async function openBenchRig(): Promise<BenchRig> {
  // The harness's own pool bulk-loads and vacuums: longer than the service's query timeout.
  const config = { ...loadConfig(), pgQueryTimeoutMs: 600_000 };
  const deps = createDeps(config);
  const outboxDb = deps.db;
  const dns = await startDnsStandIn(
    Object.fromEntries(BENCH_DOMAINS.map((d) => [d, { mx: [{ exchange: 'mx.bench.net', priority: 10 }] }])),
  );
  const tenant = await createTenant(deps.db, `bench-${Date.now()}`);
  const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
  const env = { RATE_LIMIT_PER_MINUTE: RATE_LIMIT, LOG_LEVEL: 'warn', DNS_SERVERS: dns.server, DEVICE_TOKEN_TTL_SECONDS: '3600' };
  let writerPid: number | undefined;

  async function startServer(args: string[], port: number, node = 'node', extra: Record<string, string> = {}): Promise<ChildProcess> {
    const child = spawn(node, args, {
      env: { ...process.env, ...env, ...extra, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      const up = await fetch(`http://127.0.0.1:${port}/v1/verdict`, { method: 'POST', body: '{}' }).then(
        () => true,
        () => false,
      );
      if (up) return child;
      if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not start`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  function startWriter(node = 'node'): ChildProcess {
    const writer = spawn(node, ['bin/doorman.js', 'worker'], {
      env: { ...process.env, ...env, METRICS_PORT: '0' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(writer);
    writerPid = writer.pid;
    return writer;
  }

  const hasTaskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
  function startHog(seconds: number): ChildProcess {
    const loop = `const end = Date.now() + ${Math.ceil((seconds + 2) * 1000)}; while (Date.now() < end) {}`;
    const [cmd, args] = hasTaskset ? ['taskset', ['-c', '0', process.execPath, '-e', loop]] : [process.execPath, ['-e', loop]];
    const hog = spawn(cmd, args, { stdio: 'ignore' });
    children.push(hog);
    log(`cpu hog pid ${hog.pid} for ${seconds + 2} s${hasTaskset ? ' on core 0 (taskset)' : ''}`);
    return hog;
  }

  async function stopHog(hog: ChildProcess): Promise<void> {
    if (hog.exitCode !== null || hog.signalCode !== null) return;
    const exited = new Promise((r) => hog.once('exit', r));
    if (hog.pid !== undefined) process.kill(hog.pid, 'SIGKILL');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  }

  async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }

  // Every step starts from an empty graph outbox: the links the previous step left (an overload,
  // a saturation run, the floor's rows, which the writer applies) are not charged to the next
  // step. How long the writer took is logged: its apply rate under no other load.
  async function drainOutbox(label: string): Promise<void> {
    const depth = async () =>
      (await outboxDb.query<{ n: number }>('SELECT count(*)::int AS n FROM graph_outbox WHERE failed_at IS NULL')).rows[0]!.n;
    const started = Date.now();
    const first = await depth();
    let left = first;
    while (left > 0 && Date.now() - started < 180_000) {
      await new Promise((r) => setTimeout(r, 100));
      left = await depth();
    }
    if (first > 0) {
      const seconds = (Date.now() - started) / 1000;
      log(
        `before ${label}: outbox ${first} rows, ${left === 0 ? `drained in ${seconds.toFixed(1)} s (${Math.round(first / seconds)} rows/s)` : `${left} left after 180 s`}`,
      );
    }
  }

  // The graph writer runs in a `doorman worker` of its own, so a server's CPU is its
  // requests' alone (the floor's links are applied by that worker too); the worker's CPU during
  // each step is reported beside them.
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
    log(
      `${label}: ${result.throughput} req/s ok, p50 ${result.p50} ms, p90 ${result.p90}, p99 ${result.p99}, max ${result.max}, refused ${result.refused}, errors ${result.errors}, fail-open ${result.failOpen}${
        Object.keys(result.failOpenSources).length
          ? ` (${Object.entries(result.failOpenSources)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')})`
          : ''
      }, graph p50 ${result.graphP50} ms p99 ${result.graphP99} ms (of ${result.graphTimed}), cpu ${cpuPercent}% (${cpuMsPerRequest} ms/request), writer cpu ${writerCpuPercent ?? '-'}%, rss ${rssMbMax} MB`,
    );
    return { label, ...result, cpuPercent, cpuMsPerRequest, ...(writerCpuPercent !== undefined && { writerCpuPercent }), rssMbMax };
  }

  async function mintTraffic(origin: string): Promise<{ traffic: Traffic; contended: Traffic }> {
    log('minting device tokens');
    const tokens: string[] = [];
    for (let i = 0; i < DEVICE_TOKENS; i++) {
      const res = await fetch(`${origin}/v1/device`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.keys.pk_test}`, 'content-type': 'application/json' },
        body: JSON.stringify({ components: { canvas: `c${i}`, screen: '1920x1080' } }),
      });
      tokens.push(((await res.json()) as { device_token: string }).device_token);
    }
    const asRequest =
      (next: () => Record<string, unknown>): NextRequest =>
      () => ({ path: '/v1/verdict', headers: { authorization: `Bearer ${tenant.keys.sk_test}` }, body: JSON.stringify(next()) });
    return {
      traffic: (seed) => asRequest(createTraffic(seed, tokens)),
      contended: (seed) => asRequest(createContendedTraffic(seed, tokens)),
    };
  }

  async function close(): Promise<void> {
    await dns.close();
    await deps.close();
  }

  return { deps, tenant, scope, env, startServer, startWriter, stop, drainOutbox, measure, mintTraffic, startHog, stopHog, close };
}
