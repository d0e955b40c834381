// Writes docs/benchmarks.md (tables, ratios against the targets) and the latency chart.
import fs from 'node:fs';
import { lineChart } from './chart.js';
import type { LoadResult } from './load-generator.js';

export type Run = LoadResult & { label: string; cpuPercent: number; rssMbMax: number };

export interface Report {
  quick: boolean;
  machine: { cores: number; memoryGb: number; cpu: string; load: string };
  versions: Record<string, string>;
  settings: { stepSeconds: number; sustainSeconds: number; saturationSeconds: number; concurrency: number; rateLimit: string };
  rates: { rate: number; verdict: Run; floor: Run }[];
  saturation: { verdict: Run; floor: Run };
  growth: { events: number; run: Run }[];
  minutes: number;
}

const row = (name: string, r: Run) =>
  `| ${name} | ${r.throughput} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.errors} | ${r.cpuPercent}% | ${r.rssMbMax} |`;
const HEADER = '| run | ok req/s | p50 ms | p90 ms | p99 ms | max ms | errors | CPU | RSS MB |\n|---|---|---|---|---|---|---|---|---|';
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
const verdictOf = (ok: boolean) => (ok ? 'met' : '**missed**');

export function writeReport(r: Report): void {
  const at200 = r.rates.find((x) => x.rate === 200);
  const sustained = r.growth[0]?.run;
  const big = r.growth.at(-1);
  const p50Ratio = at200 ? at200.verdict.p50 / at200.floor.p50 : NaN;
  const growthRatio = big && sustained ? big.run.p99 / sustained.p99 : NaN;
  const chart = lineChart('Verdict latency against request rate (lower is better)', 'requests per second (open loop)', 'latency, ms', [
    { label: 'verdict p50', colour: '#1f77b4', points: r.rates.map((x) => ({ x: x.rate, y: x.verdict.p50 })) },
    { label: 'verdict p99', colour: '#d62728', points: r.rates.map((x) => ({ x: x.rate, y: x.verdict.p99 })) },
    { label: 'floor p50', colour: '#1f77b4', dash: '5,4', points: r.rates.map((x) => ({ x: x.rate, y: x.floor.p50 })) },
    { label: 'floor p99', colour: '#d62728', dash: '5,4', points: r.rates.map((x) => ({ x: x.rate, y: x.floor.p99 })) },
  ]);
  fs.writeFileSync('docs/benchmarks-latency.svg', chart);
  const md = `# Benchmarks

${r.quick ? '> **Quick run** (BENCH_QUICK=1): short steps, for checking the harness only. Not the published figures.\n' : ''}
Produced by \`npm run bench\` (\`bench/run-bench.ts\`), which rewrites this page. All figures of one
table come from one run on one machine; the machine is shared, so compare ratios within a run
rather than absolute numbers across runs.

## Machine and versions

| | |
|---|---|
| cores / memory | ${r.machine.cores} / ${r.machine.memoryGb} GiB (${r.machine.cpu}) |
| load average at the end | ${r.machine.load} |
${Object.entries(r.versions).map(([k, v]) => `| ${k} | ${v} |`).join('\n')}
| run time | ${r.minutes.toFixed(1)} min |

Everything runs on this one machine: the Doorman server (one process, \`node bin/doorman.js serve
--no-worker\`), Postgres, Redis, Neo4j, a local DNS stand-in answering MX, and the load generator.
\`RATE_LIMIT_PER_MINUTE\` is raised to ${r.settings.rateLimit} for the run (the contract's 600 per key
per minute would cap one key at 10 req/s); nothing else differs from the defaults (signal deadline
150 ms).

## How it is measured

- **Traffic**: \`bench/traffic.ts\`, a seeded mix of 40% signup, 25% login, 20% checkout_attempt,
  10% trial_start, 5% trial_convert over 20,000 generated users (skewed so some return often),
  with shared phones (households), shared and test cards, a placeholder-phone hub, device tokens
  on half the events (neighbouring users share devices), 42 email domains.
- **Load**: \`bench/load-generator.ts\` (undici). Fixed rates are an open loop: latency counts from
  each request's scheduled send time, so queueing is not hidden. Saturation is a closed loop of
  ${r.settings.concurrency} concurrent requests. Steps: ${r.settings.stepSeconds} s per rate, ${r.settings.saturationSeconds} s saturation, ${r.settings.sustainSeconds} s per growth size.
- **Floor**: \`bench/floor-server.ts\`, a bare \`node:http\` server on the same drivers and store
  functions doing only a verdict's mandatory I/O: key lookup, list lookup, velocity read, the
  graph link (same Cypher), the event write (same SQL), the velocity record. No Express, no
  validation, no signal logic, no engine.
- **CPU / memory**: of the server process, from \`/proc\` during each step (100% = one core).

## Verdict against the floor, by request rate

${HEADER}
${r.rates.flatMap((x) => [row(`verdict @ ${x.rate}/s`, x.verdict), row(`floor @ ${x.rate}/s`, x.floor)]).join('\n')}
${row('verdict, saturation', r.saturation.verdict)}
${row('floor, saturation', r.saturation.floor)}

![latency percentiles against request rate](benchmarks-latency.svg)

## Cost as stored data grows (verdict @ 200/s, ${r.settings.sustainSeconds} s)

${HEADER}
${r.growth.map((g) => row(`${g.events.toLocaleString('en')} events stored`, g.run)).join('\n')}

Stored history is bulk-loaded (\`bench/seed-growth.ts\`: INSERT … SELECT in Postgres, batched
UNWIND in Neo4j: an account, an email and a cluster per four events) into the same tenant and
mode the traffic uses; then both stores are settled (VACUUM ANALYZE, checkpoints) and the verdict
runs 10 s unmeasured at 200/s before the measured run. Earlier runs and what changed between them:
\`docs/benchmarks-history.md\`.

## Targets

| target | figure | |
|---|---|---|
| verdict p50 ≤ 10 ms at 200 req/s sustained | ${sustained?.p50 ?? 'n/a'} ms | ${verdictOf((sustained?.p50 ?? 99) <= 10)} |
| verdict p99 ≤ 40 ms at 200 req/s sustained | ${sustained?.p99 ?? 'n/a'} ms | ${verdictOf((sustained?.p99 ?? 99) <= 40)} |
| zero errors at 200 req/s sustained | ${sustained?.errors ?? 'n/a'} | ${verdictOf(sustained?.errors === 0)} |
| verdict p50 ≤ 1.5 × floor p50 at 200 req/s | ${at200 ? `${at200.verdict.p50} / ${at200.floor.p50} = ${ratio(at200.verdict.p50, at200.floor.p50)}` : 'n/a'} | ${verdictOf(p50Ratio <= 1.5)} |
| p99 at ${big?.events.toLocaleString('en') ?? '?'} stored ≤ 1.2 × p99 at ${r.growth[0]?.events.toLocaleString('en') ?? '?'} | ${big && sustained ? `${big.run.p99} / ${sustained.p99} = ${ratio(big.run.p99, sustained.p99)}` : 'n/a'} | ${verdictOf(growthRatio <= 1.2)} |
`;
  fs.writeFileSync('docs/benchmarks.md', md);
}
