// `npm run soak` (scripts/soak.sh): a long steady load on one API process and one worker (30
// minutes at 100 req/s by default, SOAK_MINUTES / SOAK_RATE), sampling every process's memory,
// file descriptors and store connections every 10 s, then writing the figures (SOAK_OUT,
// default docs/soak.md). Not part of `npm test`. Loopback only; bounded; stops by itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { loadConfig, repoDir } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { createTenant } from '../src/tenants/manage-tenants.js';
import { startDnsStandIn } from '../test/support/dns-stand-in.js';
import { freePort } from '../test/support/free-port.js';
import { BENCH_DOMAINS, createTraffic } from './traffic.js';
import { sampleProcess, type ProcessSample } from './soak-sampler.js';
import { writeSoakReport, type Minute } from './soak-report.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const RATE = Number(process.env.SOAK_RATE ?? 100);
const SAMPLE_MS = 10_000;
const MAX_IN_FLIGHT = 256;
const log = (msg: string) => process.stderr.write(`[soak] ${msg}\n`);

function start(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('node', ['bin/doorman.js', ...args], {
    cwd: repoDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitFor(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(url).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`${url} did not answer`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(): Promise<void> {
  const deps = createDeps(loadConfig());
  const dns = await startDnsStandIn(Object.fromEntries(BENCH_DOMAINS.map((d) => [d, { mx: [{ exchange: 'mx.soak.net', priority: 10 }] }])));
  const tenant = await createTenant(deps.db, `soak-${randomUUID().slice(0, 8)}`);
  await deps.close();
  const port = await freePort();
  const env = {
    PORT: String(port),
    RATE_LIMIT_PER_MINUTE: '10000000',
    LOG_LEVEL: 'warn',
    DNS_SERVERS: dns.server,
    DEVICE_TOKEN_TTL_SECONDS: '86400',
  };
  const processes = { api: start(['serve', '--no-worker'], env), worker: start(['worker'], env) };
  const base = `http://127.0.0.1:${port}`;
  const samples: Record<string, ProcessSample[]> = { api: [], worker: [] };
  let sampler: NodeJS.Timeout | undefined;
  try {
    await waitFor(`${base}/health`);
    const pool = new Pool(base, { connections: 64 });
    const tokens: string[] = [];
    for (let i = 0; i < 300; i++) {
      const res = await pool.request({
        method: 'POST',
        path: '/v1/device',
        headers: { authorization: `Bearer ${tenant.keys.pk_test}`, 'content-type': 'application/json' },
        body: JSON.stringify({ components: { canvas: `c${i}` } }),
      });
      tokens.push(((await res.body.json()) as { device_token: string }).device_token);
    }
    const next = createTraffic(7, tokens);
    const sample = () => {
      for (const [name, child] of Object.entries(processes)) {
        const s = sampleProcess(child.pid!, name === 'api' ? port : undefined);
        if (s) samples[name]!.push(s);
      }
    };
    sample();
    sampler = setInterval(sample, SAMPLE_MS);

    log(`${MINUTES} min at ${RATE} req/s against ${base}`);
    const minutes: Minute[] = Array.from({ length: MINUTES }, () => ({ sent: 0, statuses: {}, latencies: [] }));
    const started = performance.now();
    const total = RATE * 60 * MINUTES;
    let inFlight = 0;
    const pending = new Set<Promise<void>>();
    for (let i = 0; i < total; i++) {
      const wait = started + (i * 1000) / RATE - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inFlight >= MAX_IN_FLIGHT) await Promise.race(pending);
      const minute = minutes[Math.min(MINUTES - 1, Math.floor(i / (RATE * 60)))]!;
      const scheduled = started + (i * 1000) / RATE;
      minute.sent += 1;
      inFlight += 1;
      const p = pool
        .request({
          method: 'POST',
          path: '/v1/verdict',
          headers: { authorization: `Bearer ${tenant.keys.sk_test}`, 'content-type': 'application/json' },
          body: JSON.stringify(next()),
        })
        .then(
          async (res) => {
            await res.body.dump();
            return String(res.statusCode);
          },
          () => 'network',
        )
        .then((status) => {
          minute.statuses[status] = (minute.statuses[status] ?? 0) + 1;
          minute.latencies.push(performance.now() - scheduled);
          inFlight -= 1;
          pending.delete(p);
        });
      pending.add(p);
      if (i > 0 && i % (RATE * 60) === 0) log(`minute ${i / (RATE * 60)} done; api rss ${samples.api!.at(-1)?.rssMb} MB`);
    }
    await Promise.all(pending);
    sample();
    await pool.close();
    const out = writeSoakReport({
      minutes: MINUTES,
      rate: RATE,
      seconds: (performance.now() - started) / 1000,
      samples,
      perMinute: minutes,
    });
    log(`figures written to ${out}`);
  } finally {
    clearInterval(sampler);
    for (const child of Object.values(processes)) child.kill('SIGTERM');
    await dns.close();
  }
}

await main();
