// Writes docs/benchmarks.md (tables, ratios against the targets) and the latency chart.
import fs from 'node:fs';
import { lineChart } from './chart.js';
import type { LoadResult } from './load-generator.js';
import type { GraphQualityResult } from './graph-quality/run-graph-quality.js';
import type { ProbeResult } from './read-your-writes.js';

export type Run = LoadResult & { label: string; cpuPercent: number; cpuMsPerRequest: number; writerCpuPercent?: number; rssMbMax: number };

export interface BacktestResult {
  events: number;
  runs: number[];
  events_per_second: number;
  flips: number;
}

export interface Report {
  quick: boolean;
  machine: { cores: number; memoryGb: number; cpu: string; load: string };
  versions: Record<string, string>;
  settings: { stepSeconds: number; sustainSeconds: number; saturationSeconds: number; concurrency: number; rateLimit: string };
  rates: { rate: number; verdict: Run; floor: Run }[];
  saturation: { verdict: Run; floor: Run };
  contention: { open: { run: Run; probe: ProbeResult }; saturation: Run };
  growth: { events: number; run: Run; probe: ProbeResult }[];
  backtest: BacktestResult;
  graphQuality: GraphQualityResult;
  minutes: number;
}

const row = (name: string, r: Run) =>
  `| ${name} | ${r.throughput} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.errors} | ${r.failOpen}${sources(r)} | ${r.cpuPercent}% | ${r.cpuMsPerRequest} | ${r.writerCpuPercent ?? '-'}% | ${r.rssMbMax} |`;
const sources = (r: Run) => {
  const entries = Object.entries(r.failOpenSources ?? {});
  return entries.length ? ` (${entries.map(([k, n]) => `${k} ${n}`).join(', ')})` : '';
};
const HEADER =
  '| run | ok req/s | p50 ms | p90 ms | p99 ms | max ms | errors | fail-open | CPU | ms CPU per request | writer CPU | RSS MB |\n|---|---|---|---|---|---|---|---|---|---|---|---|';
const probeRow = (name: string, p: ProbeResult) =>
  `| ${name} | ${p.lagP50} | ${p.lagP99} | ${p.lagMax} | ${p.seen} / ${p.pairs} = ${p.seenPercent}% | ${p.unapplied} |`;
const PROBE_HEADER =
  '| during | link lag p50 ms | p99 ms | max ms | next event (100 ms later) saw the link | not applied in 5 s |\n|---|---|---|---|---|---|';
// The first design's baseline: it saturated at 313 verdicts/s on this machine.
const OLD_SATURATION = 313;
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
const verdictOf = (ok: boolean) => (ok ? 'met' : '**missed**');

export function writeReport(r: Report): void {
  const at200 = r.rates.find((x) => x.rate === 200);
  const sustained = r.growth[0]?.run;
  const big = r.growth.at(-1);
  const p50Ratio = at200 ? at200.verdict.p50 / at200.floor.p50 : NaN;
  const growthRatio = big && sustained ? big.run.p99 / sustained.p99 : NaN;
  const growthP50Ratio = big && sustained ? big.run.p50 / sustained.p50 : NaN;
  const worstLagP99 = Math.max(...r.growth.map((g) => g.probe.lagP99));
  const worstSeen = Math.min(...r.growth.map((g) => g.probe.seenPercent));
  const failOpensAt200 = r.growth.reduce((n, g) => n + g.run.failOpen, 0);
  const contendedFailOpens = r.contention.open.run.failOpen + r.contention.saturation.failOpen;
  const chart = lineChart('Verdict latency against request rate (lower is better)', 'requests per second (open loop)', 'latency, ms', [
    { label: 'verdict p50', colour: '#1f77b4', points: r.rates.map((x) => ({ x: x.rate, y: x.verdict.p50 })) },
    { label: 'verdict p99', colour: '#d62728', points: r.rates.map((x) => ({ x: x.rate, y: x.verdict.p99 })) },
    { label: 'floor p50', colour: '#1f77b4', dash: '5,4', points: r.rates.map((x) => ({ x: x.rate, y: x.floor.p50 })) },
    { label: 'floor p99', colour: '#d62728', dash: '5,4', points: r.rates.map((x) => ({ x: x.rate, y: x.floor.p99 })) },
  ]);
  fs.writeFileSync('docs/benchmarks-latency.svg', chart);
  const floorSat = r.saturation.floor;
  const verdictSat = r.saturation.verdict;
  const at400 = r.rates.find((x) => x.rate === 400);
  const lagSteps = [r.contention.open.probe, ...r.growth.map((g) => g.probe)];
  const worstLagAll = Math.max(...lagSteps.map((p) => p.lagP99));
  const cpuRatios = r.rates.map((x) => x.verdict.cpuMsPerRequest / x.floor.cpuMsPerRequest);
  const cpuAt200 = at200 ? at200.verdict.cpuMsPerRequest / at200.floor.cpuMsPerRequest : NaN;
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
${Object.entries(r.versions)
  .map(([k, v]) => `| ${k} | ${v} |`)
  .join('\n')}
| run time | ${r.minutes.toFixed(1)} min |

Everything runs on this one machine: the Doorman server (one process, \`node bin/doorman.js serve
--no-worker --no-graph-writer\`), the graph writer (one \`node bin/doorman.js worker\`), Postgres,
Redis, Neo4j, a local DNS stand-in answering MX, and the load generator.
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
  Each step starts once the graph outbox is empty, so links an earlier step left behind (an
  overload, a saturation run, the floor's rows) are not applied during the next one.
- **Contended traffic**: \`createContendedTraffic\` in the same file: 1,000 users, a few of whom
  return constantly, households of four sharing a phone, every card shared by two accounts,
  devices shared by pairs, so many events touch the same graph nodes.
- **Floor**: \`bench/floor-server.ts\`, a bare \`node:http\` server on the same drivers and store
  functions doing only this design's mandatory I/O: one velocity round trip (the counting
  script), one read-only Cypher (the cluster read), one Postgres write (the event with its graph
  link in the outbox, after the check for waiting links that join it); keys are held in memory,
  as the verdict holds them. No Express, no validation, no signal logic, no engine. (The figures
  of floors that also linked the graph inline or read each key from Postgres are in
  \`docs/benchmarks-history.md\`.)
- **Fail-open**: 200s decided without a signal source (\`timeout_failopen\` or
  \`partial_enrichment\`), counted from the responses, by source.
- **Link lag and read-your-writes**: \`bench/read-your-writes.ts\` runs beside a measured load at
  5 pairs/s: event A (a new account, a new phone), then 100 ms after A's answer event B (another
  account, the same phone). B saw A's link when it reports \`identity_cluster\` with
  \`linked_accounts: 2\`. The link lag is from A's answer until A's link is visible in Neo4j
  (one query for all pending events every 20 ms).
- **CPU / memory**: of the server process, from \`/proc\` during each step (100% = one core).
  *ms CPU per request* is the server process's CPU time over the requests it answered 200 in
  the step. *Writer CPU* is the graph writer's process in the same step (it applies the verdict's
  and the floor's links alike, so it is not charged to either).

## Verdict against the floor, by request rate

${HEADER}
${r.rates.flatMap((x) => [row(`verdict @ ${x.rate}/s`, x.verdict), row(`floor @ ${x.rate}/s`, x.floor)]).join('\n')}
${row('verdict, saturation', r.saturation.verdict)}
${row('floor, saturation', r.saturation.floor)}

## Contended traffic

${HEADER}
${row('contended @ 150/s', r.contention.open.run)}
${row('contended, saturation', r.contention.saturation)}

## Link lag and read-your-writes

${PROBE_HEADER}
${probeRow('contended @ 150/s', r.contention.open.probe)}
${r.growth.map((g) => probeRow(`verdict @ 200/s, ${g.events.toLocaleString('en')} stored`, g.probe)).join('\n')}

![latency percentiles against request rate](benchmarks-latency.svg)

## Cost as stored data grows (verdict @ 200/s, ${r.settings.sustainSeconds} s)

${HEADER}
${r.growth.map((g) => row(`${g.events.toLocaleString('en')} events stored`, g.run)).join('\n')}

## Policy backtests

\`bench/backtest-throughput.ts\` seeds ${r.backtest.events.toLocaleString('en')} engine-judged events (a realistic signal mix, some
labels) in a tenant of its own and backtests a candidate policy over them three times, inline:
${r.backtest.runs.map((n) => n.toLocaleString('en')).join(', ')} stored events evaluated per second (median **${r.backtest.events_per_second.toLocaleString('en')}**; ${r.backtest.flips.toLocaleString('en')} decisions flipped).

Stored history is bulk-loaded (\`bench/seed-growth.ts\`: INSERT … SELECT in Postgres, batched
UNWIND in Neo4j: an account, an email and a cluster per four events) into the same tenant and
mode the traffic uses; then both stores are settled (VACUUM ANALYZE, checkpoints) and the verdict
runs 10 s unmeasured at 200/s before the measured run. Earlier runs and what changed between them:
\`docs/benchmarks-history.md\`.

## Targets

| target: the write path | figure | |
|---|---|---|
| saturation ≥ 2 × ${OLD_SATURATION} verdicts/s (the first design's) | ${r.saturation.verdict.throughput} / ${OLD_SATURATION} = ${ratio(r.saturation.verdict.throughput, OLD_SATURATION)} | ${verdictOf(r.saturation.verdict.throughput >= 2 * OLD_SATURATION)} |
| p50 ≤ 8 ms at 200 req/s for ${r.settings.sustainSeconds} s | ${sustained?.p50 ?? 'n/a'} ms | ${verdictOf((sustained?.p50 ?? 99) <= 8)} |
| p99 ≤ 40 ms at 200 req/s for ${r.settings.sustainSeconds} s | ${sustained?.p99 ?? 'n/a'} ms | ${verdictOf((sustained?.p99 ?? 99) <= 40)} |
| zero errors at 200 req/s | ${sustained?.errors ?? 'n/a'} | ${verdictOf(sustained?.errors === 0)} |
| zero fail-opens after warm-up at 200 req/s | ${failOpensAt200} | ${verdictOf(failOpensAt200 === 0)} |
| zero fail-opens on the contended traffic | ${contendedFailOpens} | ${verdictOf(contendedFailOpens === 0)} |
| link lag p99 ≤ 250 ms at 200 req/s | ${worstLagP99} ms | ${verdictOf(worstLagP99 <= 250)} |
| the next event 100 ms later sees the link in ≥ 99% at 200 req/s | ${worstSeen}% | ${verdictOf(worstSeen >= 99)} |
| cost as data grows: p50 and p99 at ${big?.events.toLocaleString('en') ?? '?'} stored ≤ 1.2 × at ${r.growth[0]?.events.toLocaleString('en') ?? '?'} | p50 ${ratio(big?.run.p50 ?? 0, sustained?.p50 ?? 0)}, p99 ${ratio(big?.run.p99 ?? 0, sustained?.p99 ?? 0)} | ${verdictOf(growthRatio <= 1.2 && growthP50Ratio <= 1.2)} |
| backtest ≥ 50,000 stored events evaluated per second | ${r.backtest.events_per_second.toLocaleString('en')} | ${verdictOf(r.backtest.events_per_second >= 50_000)} |
| verdict p50 ≤ 1.5 × floor p50 at 200 req/s | ${at200 ? `${at200.verdict.p50} / ${at200.floor.p50} = ${ratio(at200.verdict.p50, at200.floor.p50)}` : 'n/a'} | ${verdictOf(p50Ratio <= 1.5)} |

| target: the verdict's own cost | figure | |
|---|---|---|
| verdict saturation ≥ 0.9 × the floor's | ${verdictSat.throughput} / ${floorSat.throughput} = ${ratio(verdictSat.throughput, floorSat.throughput)} | ${verdictOf(verdictSat.throughput >= 0.9 * floorSat.throughput)} |
| verdict CPU per request ≤ 1.3 × the floor's (at 200 req/s; by rate: ${cpuRatios.map((x) => x.toFixed(2)).join(', ')}) | ${at200 ? `${at200.verdict.cpuMsPerRequest} / ${at200.floor.cpuMsPerRequest} ms = ${cpuAt200.toFixed(2)}` : 'n/a'} | ${verdictOf(cpuAt200 <= 1.3)} |
| 400 req/s offered: p99 ≤ 100 ms, no fail-open | ${at400 ? `${at400.verdict.throughput} req/s ok, p99 ${at400.verdict.p99} ms, ${at400.verdict.failOpen} fail-open` : 'n/a'} | ${verdictOf(!!at400 && at400.verdict.p99 <= 100 && at400.verdict.failOpen === 0)} |
| link lag p99 ≤ 250 ms on every step with a probe | ${lagSteps.map((p) => p.lagP99).join(' / ')} ms | ${verdictOf(worstLagAll <= 250)} |
| growth from ${r.growth[0]?.events.toLocaleString('en') ?? '?'} to ${big?.events.toLocaleString('en') ?? '?'} stored ≤ 1.2 × at p50 and p99 | p50 ${ratio(big?.run.p50 ?? 0, sustained?.p50 ?? 0)}, p99 ${ratio(big?.run.p99 ?? 0, sustained?.p99 ?? 0)} | ${verdictOf(growthRatio <= 1.2 && growthP50Ratio <= 1.2)} |
`;
  const q = r.graphQuality.scores;
  const quality = `
## Identity graph quality (bench/graph-quality, docs/graph-quality.md)

${r.graphQuality.people.toLocaleString('en')} people, ${r.graphQuality.events.toLocaleString('en')} events, ${r.graphQuality.feedback} feedback reports (seed ${r.graphQuality.params.seed}), replayed through the API in ${r.graphQuality.seconds} s.

| measure | value |
|---|---|
| innocent people blocked by a cluster reason | ${q.innocent_blocked} (${(q.innocent_blocked_rate * 100).toFixed(2)}%), of whom ${q.innocent_blocked_marked_themselves} were themselves marked by mistake; through the graph alone ${q.innocent_blocked_through_graph} (${(q.innocent_blocked_through_graph_rate * 100).toFixed(2)}%) |
| honest signups held by a cluster reason | ${q.honest_signups_held} of ${q.honest_signups} (${(q.honest_signups_held_rate * 100).toFixed(1)}%) |
| ring events caught by a cluster reason after the ring's first confirmed member | ${(q.ring_recall * 100).toFixed(1)}% of ${q.ring_events_after_first_confirmation} |
| pairwise precision / recall of the final clusters | ${q.pairwise_precision} / ${q.pairwise_recall} |
| largest cluster (accounts), clusters | ${q.largest_cluster}, ${q.clusters} |
`;
  fs.writeFileSync('docs/benchmarks.md', md + quality);
}
