// A small load generator on undici: open loop at a fixed request rate (latency measured from
// each request's scheduled time, so a stalled server cannot hide its queueing), or closed loop
// at a fixed concurrency for saturation. Bounded in time; loopback targets only.
import { Pool } from 'undici';

export interface LoadResult {
  sent: number;
  ok: number;
  errors: number;
  // 200s decided without a signal source (timeout_failopen or partial_enrichment), by source.
  failOpen: number;
  failOpenSources: Record<string, number>;
  statuses: Record<string, number>;
  seconds: number;
  throughput: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export type NextRequest = () => { path: string; headers: Record<string, string>; body: string };

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

interface Tally {
  statuses: Record<string, number>;
  failOpen: number;
  failOpenSources: Record<string, number>;
}

const newTally = (): Tally => ({ statuses: {}, failOpen: 0, failOpenSources: {} });

function summarise(latencies: number[], tally: Tally, seconds: number): LoadResult {
  const { statuses } = tally;
  latencies.sort((a, b) => a - b);
  const ok = statuses['200'] ?? 0;
  const sent = Object.values(statuses).reduce((a, b) => a + b, 0);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    sent,
    ok,
    errors: sent - ok,
    failOpen: tally.failOpen,
    failOpenSources: tally.failOpenSources,
    statuses,
    seconds: round(seconds),
    throughput: round(ok / seconds),
    p50: round(percentile(latencies, 0.5)),
    p90: round(percentile(latencies, 0.9)),
    p99: round(percentile(latencies, 0.99)),
    max: round(latencies.at(-1) ?? 0),
  };
}

type Reason = { code: string; detail?: { sources?: string } };

async function send(pool: Pool, next: NextRequest, tally: Tally): Promise<void> {
  const r = next();
  const { statuses } = tally;
  try {
    const res = await pool.request({
      method: 'POST',
      path: r.path,
      headers: { 'content-type': 'application/json', ...r.headers },
      body: r.body,
    });
    const text = await res.body.text();
    statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
    if (res.statusCode !== 200) return;
    const missing = ((JSON.parse(text) as { reasons?: Reason[] }).reasons ?? []).filter(
      (x) => x.code === 'timeout_failopen' || x.code === 'partial_enrichment',
    );
    if (missing.length === 0) return;
    tally.failOpen += 1;
    for (const m of missing) {
      for (const source of String(m.detail?.sources ?? '?').split(',')) {
        const key = `${m.code === 'timeout_failopen' ? 'timeout' : 'unavailable'}:${source}`;
        tally.failOpenSources[key] = (tally.failOpenSources[key] ?? 0) + 1;
      }
    }
  } catch {
    statuses.network = (statuses.network ?? 0) + 1;
  }
}

export async function openLoop(origin: string, next: NextRequest, rate: number, seconds: number): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: 64, pipelining: 1 });
  const latencies: number[] = [];
  const tally = newTally();
  const interval = 1000 / rate;
  const start = performance.now();
  const total = Math.round(rate * seconds);
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = start + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send(pool, next, tally).then(() => void latencies.push(performance.now() - scheduled)));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  return summarise(latencies, tally, elapsed);
}

export async function closedLoop(origin: string, next: NextRequest, concurrency: number, seconds: number): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const latencies: number[] = [];
  const tally = newTally();
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await send(pool, next, tally);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  return summarise(latencies, tally, elapsed);
}
