// `node --import tsx bench/profile-verdict.ts [rate] [seconds]`: one verdict server under the
// bench's traffic at a fixed rate, with V8's CPU profiler on, then a summary of where its CPU
// went (self time by file and by function). The profile file stays in .bench/profile/ for
// Chrome DevTools. PROFILE_CPU=0 runs without the profiler and says only the server's CPU per
// request (from /proc), for comparing two builds. Needs the stack and a migrated DATABASE_URL (scripts/bench.sh does both).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { createTenant } from '../src/tenants/manage-tenants.js';
import { startDnsStandIn } from '../test/support/dns-stand-in.js';
import { freePort } from '../test/support/free-port.js';
import { openLoop } from './load-generator.js';
import { sampleProcess } from './process-stats.js';
import { BENCH_DOMAINS, createTraffic } from './traffic.js';

const rate = Number(process.argv[2] ?? 200);
const seconds = Number(process.argv[3] ?? 20);
const dir = path.resolve('.bench/profile');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });

const deps = createDeps(loadConfig());
const dns = await startDnsStandIn(Object.fromEntries(BENCH_DOMAINS.map((d) => [d, { mx: [{ exchange: 'mx.bench.net', priority: 10 }] }])));
const tenant = await createTenant(deps.db, `profile-${Date.now()}`);
const port = await freePort();
const profiling = process.env.PROFILE_CPU !== '0';
const child = spawn(
  'node',
  [
    ...(profiling ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : process.env.PERF_MAP ? ['--perf-basic-prof'] : []),
    'bin/doorman.js',
    'serve',
    '--no-worker',
  ],
  {
    env: {
      ...process.env,
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: '10000000',
      LOG_LEVEL: 'warn',
      DNS_SERVERS: dns.server,
      METRICS_PORT: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
const origin = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  if (
    (await fetch(`${origin}/health`).then(
      (r) => r.status,
      () => 0,
    )) === 200
  )
    break;
  if (i > 300) throw new Error('the server did not start');
  await new Promise((r) => setTimeout(r, 200));
}
const traffic = (seed: number) => {
  const next = createTraffic(seed, []);
  return () => ({ path: '/v1/verdict', headers: { authorization: `Bearer ${tenant.keys.sk_test}` }, body: JSON.stringify(next()) });
};
await openLoop(origin, traffic(1), rate, 5);
// Beside the load, 5 verdicts a second whose Server-Timing headers say where each spent its time.
const timings = new Map<string, number[]>();
const sample = createTraffic(3, []);
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const started = performance.now();
    const res = await fetch(`${origin}/v1/verdict`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.keys.sk_test}`, 'content-type': 'application/json' },
      body: JSON.stringify(sample()),
    });
    const total = performance.now() - started;
    await res.arrayBuffer();
    for (const part of (res.headers.get('server-timing') ?? '').split(',')) {
      const m = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
      if (m) timings.set(m[1]!, [...(timings.get(m[1]!) ?? []), Number(m[2])]);
    }
    timings.set('(client total)', [...(timings.get('(client total)') ?? []), total]);
    await new Promise((r) => setTimeout(r, 200));
  }
})();
const cpu = sampleProcess(child.pid!);
const result = await openLoop(origin, traffic(2), rate, seconds);
const used = cpu();
sampling = false;
await sampler;
const med = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
process.stderr.write(
  `[profile] Server-Timing of ${timings.get('(client total)')?.length ?? 0} sampled verdicts (p50 / p90 ms):\n${[...timings].map(([k, xs]) => `  ${k}: ${med(xs, 0.5).toFixed(1)} / ${med(xs, 0.9).toFixed(1)}`).join('\n')}\n`,
);
process.stderr.write(
  `[profile] ${rate}/s for ${seconds} s: ${result.throughput} req/s ok, ${result.refused} refused, p50 ${result.p50} ms, p99 ${result.p99} ms; server CPU ${used.cpuPercent}%, ${((used.cpuSeconds * 1000) / result.ok).toFixed(2)} ms per request\n`,
);
const exited = new Promise((r) => child.once('exit', r));
child.kill('SIGTERM');
await exited;
await dns.close();
await deps.close();
if (!profiling) process.exit(0);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const group = (key: (n: Node) => string) => {
  const sums = new Map<string, number>();
  for (const [id, us] of selfUs) sums.set(key(byId.get(id)!), (sums.get(key(byId.get(id)!)) ?? 0) + us);
  return [...sums]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
};
const where = (n: Node) => {
  const u = n.callFrame.url;
  if (!u) return `(${n.callFrame.functionName || 'vm'})`;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  return m ? `npm:${m[1]}` : u.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
};
process.stdout.write(
  `profile: ${path.join(dir, file)} (${(total / 1e6).toFixed(1)} s sampled)\n\nself time by file or package\n${group(where)}\n\nself time by function\n${group((n) => `${n.callFrame.functionName || '(anonymous)'} ${where(n)}:${n.callFrame.lineNumber + 1}`)}\n`,
);
