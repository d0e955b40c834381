// A small load generator on undici: open loop at a fixed request rate (latency measured from
// each request's scheduled time, so a stalled server cannot hide its queueing), or closed loop
// at a fixed concurrency for saturation. Bounded in time; loopback targets only.
// Latency percentiles are of the answers served (200) only: a 503 (the server refusing past
// saturation; the client fails open on it) is counted as `refused`, anything else not 200 as an
// error, and neither is in the percentiles. Each 200's Server-Timing header gives the graph
// read's duration (`graph;dur=12.3`), reported as graphP50/graphP99 of the run.
import { Pool } from 'undici';

export interface LoadResult {
  sent: number;
  // Served: answered 200.
  ok: number;
  // Answered 503: refused past saturation (the client fails open on it).
  refused: number;
  // Neither 200 nor 503 (other statuses, network failures).
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
  // The graph read's duration in the 200s whose Server-Timing names it (`graph;dur=`; a read that
  // settles after the answer, one past the deadline, is not in it): how many, p50, p99, max, and
  // how many took over 150 ms and over 250 ms.
  graphTimed: number;
  graphP50: number;
  graphP99: number;
  graphMax: number;
  graphOver150: number;
  graphOver250: number;
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
  graphMs: number[];
}

const newTally = (): Tally => ({ statuses: {}, failOpen: 0, failOpenSources: {}, graphMs: [] });

// `graph;dur=12.3` in a Server-Timing header (src/timings.ts: entries comma separated).
const GRAPH_TIMING = /(?:^|,)\s*graph\s*;\s*dur=([0-9.]+)/;

export function graphDurationOf(serverTiming: string | string[] | undefined): number | undefined {
  const header = Array.isArray(serverTiming) ? serverTiming.join(', ') : serverTiming;
  const match = header ? GRAPH_TIMING.exec(header) : null;
  return match ? Number(match[1]) : undefined;
}

const round = (n: number) => Math.round(n * 100) / 100;

// Percentiles, max and the counts over 150 ms and 250 ms of a set of durations (ms).
export function durationSummary(durations: number[]) {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? 0),
    over150: sorted.filter((d) => d > 150).length,
    over250: sorted.filter((d) => d > 250).length,
  };
}

function summarise(latencies: number[], tally: Tally, seconds: number): LoadResult {
  const { statuses } = tally;
  latencies.sort((a, b) => a - b);
  const ok = statuses['200'] ?? 0;
  const refused = statuses['503'] ?? 0;
  const sent = Object.values(statuses).reduce((a, b) => a + b, 0);
  const graph = durationSummary(tally.graphMs);
  return {
    sent,
    ok,
    refused,
    errors: sent - ok - refused,
    failOpen: tally.failOpen,
    failOpenSources: tally.failOpenSources,
    statuses,
    seconds: round(seconds),
    throughput: round(ok / seconds),
    p50: round(percentile(latencies, 0.5)),
    p90: round(percentile(latencies, 0.9)),
    p99: round(percentile(latencies, 0.99)),
    max: round(latencies.at(-1) ?? 0),
    graphTimed: graph.count,
    graphP50: graph.p50,
    graphP99: graph.p99,
    graphMax: graph.max,
    graphOver150: graph.over150,
    graphOver250: graph.over250,
  };
}

type Reason = { code: string; detail?: { sources?: string } };

// Sends one request; resolves with its status (0 for a network failure).
async function send(pool: Pool, next: NextRequest, tally: Tally): Promise<number> {
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
    if (res.statusCode !== 200) return res.statusCode;
    const graphMs = graphDurationOf(res.headers['server-timing']);
    if (graphMs !== undefined) tally.graphMs.push(graphMs);
    const missing = ((JSON.parse(text) as { reasons?: Reason[] }).reasons ?? []).filter(
      (x) => x.code === 'timeout_failopen' || x.code === 'partial_enrichment',
    );
    if (missing.length === 0) return 200;
    tally.failOpen += 1;
    for (const m of missing) {
      for (const source of String(m.detail?.sources ?? '?').split(',')) {
        const key = `${m.code === 'timeout_failopen' ? 'timeout' : 'unavailable'}:${source}`;
        tally.failOpenSources[key] = (tally.failOpenSources[key] ?? 0) + 1;
      }
    }
    return 200;
  } catch {
    statuses.network = (statuses.network ?? 0) + 1;
    return 0;
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
    inFlight.push(
      send(pool, next, tally).then((status) => {
        if (status === 200) latencies.push(performance.now() - scheduled);
      }),
    );
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
        if ((await send(pool, next, tally)) === 200) latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  return summarise(latencies, tally, elapsed);
}
