// Writes docs/benchmarks.md (tables, ratios against the targets) and the latency chart, and
// appends the run's row (the ratios against the honest floor, and the old floor's saturation) to
// docs/benchmarks-history.md.
import fs from 'node:fs';
import { lineChart } from './chart.js';
import type { GraphReadResult } from './graph-read-alone.js';
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
  // hoggedRate: the graph-read steps' rate (the read alone, the verdict with one core hogged).
  settings: {
    stepSeconds: number;
    sustainSeconds: number;
    saturationSeconds: number;
    concurrency: number;
    rateLimit: string;
    hoggedRate: number;
  };
  // floor: the honest floor (bench/floor-server.ts); oldFloor: the floor before issue 44
  // (bench/floor-old-server.ts), kept to show the change of baseline. Ratios are the honest one's.
  rates: { rate: number; verdict: Run; floor: Run; oldFloor: Run }[];
  saturation: { verdict: Run; floor: Run; oldFloor: Run };
  // The cluster read alone from the bench process (idle, one core hogged), and the verdict @200/s
  // with one core hogged.
  graphRead: { aloneIdle: GraphReadResult; aloneHogged: GraphReadResult; hoggedVerdict: Run };
  contention: { open: { run: Run; probe: ProbeResult }; saturation: Run };
  growth: { events: number; run: Run; probe: ProbeResult }[];
  backtest: BacktestResult;
  graphQuality: GraphQualityResult;
  minutes: number;
  // The checkout's commit, for the history row.
  commit: string;
}

const row = (name: string, r: Run) =>
  `| ${name} | ${r.throughput} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.refused} | ${r.errors} | ${r.failOpen}${sources(r)} | ${r.graphTimed > 0 ? r.graphP99 : '-'} | ${r.cpuPercent}% | ${r.cpuMsPerRequest} | ${r.writerCpuPercent ?? '-'}% | ${r.rssMbMax} |`;
const sources = (r: Run) => {
  const entries = Object.entries(r.failOpenSources ?? {});
  return entries.length ? ` (${entries.map(([k, n]) => `${k} ${n}`).join(', ')})` : '';
};
const HEADER =
  '| run | ok req/s | p50 ms | p90 ms | p99 ms | max ms | refused | errors | fail-open | graph p99 ms | CPU | ms CPU per request | writer CPU | RSS MB |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|';
const probeRow = (name: string, p: ProbeResult) =>
  `| ${name} | ${p.lagP50} | ${p.lagP99} | ${p.lagMax} | ${p.seen} / ${p.pairs} = ${p.seenPercent}% | ${p.unapplied} |`;
const PROBE_HEADER =
  '| during | link lag p50 ms | p99 ms | max ms | next event (100 ms later) saw the link | not applied in 5 s |\n|---|---|---|---|---|---|';
// The first design's baseline: it saturated at 313 verdicts/s on this machine.
const OLD_SATURATION = 313;
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
const verdictOf = (ok: boolean) => (ok ? 'met' : '**missed**');
// The verdicts decided without the graph (timed out or unavailable), and their share of requests.
export const graphFailOpens = (r: Run) => (r.failOpenSources['timeout:graph'] ?? 0) + (r.failOpenSources['unavailable:graph'] ?? 0);
const percentOf = (n: number, of: number) => (of > 0 ? (100 * n) / of : 0);
const GRAPH_HEADER =
  '| graph read | reads | p50 ms | p99 ms | max ms | over 150 ms | over 250 ms | graph fail-opens |\n|---|---|---|---|---|---|---|---|';
const aloneRow = (name: string, g: GraphReadResult) =>
  `| ${name} | ${g.reads}${g.skipped ? ` (${g.skipped} skipped)` : ''} | ${g.p50} | ${g.p99} | ${g.max} | ${g.over150} | ${g.over250} | ${g.failed} failed (${percentOf(g.failed, g.reads).toFixed(2)}%) |`;
const withinRow = (name: string, r: Run) =>
  `| ${name} | ${r.graphTimed} of ${r.ok} served | ${r.graphP50} | ${r.graphP99} | ${r.graphMax} | ${r.graphOver150} | ${r.graphOver250} | ${graphFailOpens(r)} of ${r.sent} (${percentOf(graphFailOpens(r), r.sent).toFixed(2)}%) |`;

export function writeReport(r: Report): void {
  const HOGGED_RATE = r.settings.hoggedRate;
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
    { label: 'floor (honest) p50', colour: '#1f77b4', dash: '5,4', points: r.rates.map((x) => ({ x: x.rate, y: x.floor.p50 })) },
    { label: 'floor (honest) p99', colour: '#d62728', dash: '5,4', points: r.rates.map((x) => ({ x: x.rate, y: x.floor.p99 })) },
    { label: 'floor (old) p50', colour: '#7f7f7f', dash: '2,3', points: r.rates.map((x) => ({ x: x.rate, y: x.oldFloor.p50 })) },
    { label: 'floor (old) p99', colour: '#2f2f2f', dash: '2,3', points: r.rates.map((x) => ({ x: x.rate, y: x.oldFloor.p99 })) },
  ]);
  fs.writeFileSync('docs/benchmarks-latency.svg', chart);
  const floorSat = r.saturation.floor;
  const verdictSat = r.saturation.verdict;
  const at400 = r.rates.find((x) => x.rate === 400);
  const lagSteps = [r.contention.open.probe, ...r.growth.map((g) => g.probe)];
  const worstLagAll = Math.max(...lagSteps.map((p) => p.lagP99));
  const cpuRatios = r.rates.map((x) => x.verdict.cpuMsPerRequest / x.floor.cpuMsPerRequest);
  const cpuAt200 = at200 ? at200.verdict.cpuMsPerRequest / at200.floor.cpuMsPerRequest : NaN;
  const oldFloorSat = r.saturation.oldFloor;
  const { aloneIdle, aloneHogged, hoggedVerdict } = r.graphRead;
  const hoggedGraphPercent = percentOf(graphFailOpens(hoggedVerdict), hoggedVerdict.sent);
  const at400Met = !!at400 && at400.verdict.ok === at400.verdict.sent && at400.verdict.p99 <= 100 && graphFailOpens(at400.verdict) === 0;
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
- **Floor (honest)**: \`bench/floor-server.ts\` (issue 44), a bare \`node:http\` server on the same
  drivers making exactly the verdict's store calls, with the verdict's parameters and result
  sizes: the policy in force and the lists from memory, the device token verified (so the device
  id is in the counters and the link), the email's domain from its syntax, then in parallel under
  the signal deadline the velocity round trip (the counting script, the verdict's counters), the
  lists match and the cluster read (the verdict's link, the same Cypher and parameter map), and
  the one Postgres write with the verdict's extras (the event with its stored request and signals,
  the graph link in the outbox, after the check for waiting links that join it; with those, the
  read again and the write without the check); \`findAnswer\` first when an Idempotency-Key is
  sent (the bench sends none); keys held in memory, as the verdict holds them. No Express, no
  validation, no engine, no logging; the email's DNS and RDAP lookups are not store calls and are
  left out. Its answers carry a Server-Timing header timed as the verdict's. The ratios are
  against this floor.
- **Floor (old)**: \`bench/floor-old-server.ts\`, the floor before issue 44, unchanged: the same
  three round trips but lighter ones (no device id or email domain in its counters and link, the
  default policy and hub threshold, no lists, an empty stored signals column). Run beside the
  others to show the change of baseline. (The figures of floors that also linked the graph inline
  or read each key from Postgres are in \`docs/benchmarks-history.md\`.)
- **Served and refused**: *ok req/s* counts 200s; a 503 (the server refusing past saturation;
  the client fails open on it) is *refused*; anything else not 200 is an *error*. Latency
  percentiles are of the 200s only.
- **Fail-open**: 200s decided without a signal source (\`timeout_failopen\` or
  \`partial_enrichment\`), counted from the responses, by source (\`timeout:graph\` is a graph read
  past the deadline).
- **Graph read**: *graph p99* is of the \`graph;dur=\` entry of each 200's Server-Timing header
  (the cluster read from its call to its settling; a read that settles after the answer, as one
  past the deadline does, is not in it: its verdict is a graph fail-open). *Graph read alone*
  (\`bench/graph-read-alone.ts\`) calls the verdict's \`readClusterFacts\` from the bench process, on
  the harness's own driver (the service's settings and timeout), at ${HOGGED_RATE} reads/s for ${r.settings.stepSeconds} s,
  with the links the verdict would build from the same traffic; no server is involved.
- **One core hogged**: a child \`node -e\` busy loop pinned to core 0 with \`taskset\` (where there
  is one; the machine has ${r.machine.cores} cores), for the step's ${r.settings.stepSeconds} s plus 2 s, ending by itself and
  killed by its pid when the step ends. It runs during one graph-read-alone step and during one
  verdict @ ${HOGGED_RATE}/s step, standing for a noisy neighbour.
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
${r.rates
  .flatMap((x) => [
    row(`verdict @ ${x.rate}/s`, x.verdict),
    row(`floor (honest) @ ${x.rate}/s`, x.floor),
    row(`floor (old) @ ${x.rate}/s`, x.oldFloor),
  ])
  .join('\n')}
${row('verdict, saturation', r.saturation.verdict)}
${row('floor (honest), saturation', r.saturation.floor)}
${row('floor (old), saturation', r.saturation.oldFloor)}
${row(`verdict @ ${HOGGED_RATE}/s, one core hogged`, hoggedVerdict)}

${
  at400
    ? `At 400 req/s offered the verdict served ${at400.verdict.throughput} req/s (${at400.verdict.ok} of ${at400.verdict.sent} answered 200), refused ${at400.verdict.refused} (503), with a p99 of the served of ${at400.verdict.p99} ms.`
    : 'No 400 req/s step in this run.'
}

## Graph read

The verdict's cluster read: alone from the bench process, and within the verdict (from its
Server-Timing), idle and with one core hogged, at ${HOGGED_RATE} req/s.

${GRAPH_HEADER}
${aloneRow('alone, idle', aloneIdle)}
${aloneRow('alone, one core hogged', aloneHogged)}
${at200 ? withinRow(`within verdict @ ${HOGGED_RATE}/s`, at200.verdict) : `| within verdict @ ${HOGGED_RATE}/s | n/a | | | | | | |`}
${withinRow(`within verdict @ ${HOGGED_RATE}/s, one core hogged`, hoggedVerdict)}

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

| target: the verdict against its floor (issue 44; the honest floor) | figure | |
|---|---|---|
| saturation, verdict / floor (honest) ≥ 0.9 (floor (old): ${oldFloorSat.throughput} req/s, ${ratio(verdictSat.throughput, oldFloorSat.throughput)}) | ${verdictSat.throughput} / ${floorSat.throughput} = ${ratio(verdictSat.throughput, floorSat.throughput)} | ${verdictOf(verdictSat.throughput >= 0.9 * floorSat.throughput)} |
| CPU per request at 200 req/s, verdict / floor (honest) ≤ 1.2 (by rate: ${cpuRatios.map((x) => x.toFixed(2)).join(', ')}) | ${at200 ? `${at200.verdict.cpuMsPerRequest} / ${at200.floor.cpuMsPerRequest} ms = ${cpuAt200.toFixed(2)}` : 'n/a'} | ${verdictOf(cpuAt200 <= 1.2)} |
| 400 req/s offered: all served, p99 of the served ≤ 100 ms, graph fail-open 0 | ${at400 ? `${at400.verdict.throughput} req/s served (${at400.verdict.ok} of ${at400.verdict.sent}), ${at400.verdict.refused} refused, p99 ${at400.verdict.p99} ms, ${graphFailOpens(at400.verdict)} graph fail-open` : 'n/a'} | ${verdictOf(at400Met)} |
| p50 at 200 req/s, verdict / floor (honest) ≤ 1.5 | ${at200 ? `${at200.verdict.p50} / ${at200.floor.p50} = ${ratio(at200.verdict.p50, at200.floor.p50)}` : 'n/a'} | ${verdictOf(p50Ratio <= 1.5)} |
| graph fail-open at 200 req/s with one core hogged ≤ 0.1% | ${graphFailOpens(hoggedVerdict)} of ${hoggedVerdict.sent} = ${hoggedGraphPercent.toFixed(2)}% | ${verdictOf(hoggedVerdict.sent > 0 && hoggedGraphPercent <= 0.1)} |

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
| link lag p99 ≤ 250 ms on every step with a probe | ${lagSteps.map((p) => p.lagP99).join(' / ')} ms | ${verdictOf(worstLagAll <= 250)} |
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

  // The history's row: both baselines, so a later run can be read against either.
  const history = `
## Bench run ${new Date().toISOString().slice(0, 10)} at ${r.commit}${r.quick ? ' (BENCH_QUICK=1: short steps, not a result)' : ''}

Written by \`npm run bench\` (bench/report.ts); ratios against the honest floor (issue 44).

| saturation req/s: verdict / floor (honest) / floor (old) | saturation ratio: honest / old | ms CPU per request @ 200/s, verdict / floor (honest) | p50 @ 200/s, verdict / floor (honest) | 400/s offered: served req/s, refused, p99 of served | graph fail-open @ 200/s, one core hogged |
|---|---|---|---|---|---|
| ${verdictSat.throughput} / ${floorSat.throughput} / ${oldFloorSat.throughput} | ${ratio(verdictSat.throughput, floorSat.throughput)} / ${ratio(verdictSat.throughput, oldFloorSat.throughput)} | ${at200 ? `${at200.verdict.cpuMsPerRequest} / ${at200.floor.cpuMsPerRequest} = ${cpuAt200.toFixed(2)}` : 'n/a'} | ${at200 ? `${at200.verdict.p50} / ${at200.floor.p50} = ${ratio(at200.verdict.p50, at200.floor.p50)}` : 'n/a'} | ${at400 ? `${at400.verdict.throughput}, ${at400.verdict.refused}, ${at400.verdict.p99} ms` : 'n/a'} | ${graphFailOpens(hoggedVerdict)} of ${hoggedVerdict.sent} (${hoggedGraphPercent.toFixed(2)}%) |
`;
  fs.appendFileSync('docs/benchmarks-history.md', history);
}
