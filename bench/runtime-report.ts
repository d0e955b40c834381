// The Markdown of bench/runtime-compare.ts: each runtime's figures, verdict over floor on each,
// and the newer runtime's ratio over the older's. Ratios only compare within this run.
import type { Run } from './report.js';

export interface StepResult {
  step: string;
  // The runtime measured first in this step.
  first: string;
  byRuntime: Record<string, { verdict: Run; floor: Run }>;
}

export interface RuntimeRunSummary {
  quick: boolean;
  date: string;
  commit: string;
  machine: string;
  loadAtStart: string;
  loadAtEnd: string;
  newer: { name: string; version: string };
  older: { name: string; version: string };
  settings: { stepSeconds: number; saturationSeconds: number; concurrency: number; warmUpSeconds: number };
  minutes: number;
  steps: StepResult[];
}

const MEASURES: { name: string; of: (r: Run) => number }[] = [
  { name: 'p50 ms', of: (r) => r.p50 },
  { name: 'p99 ms', of: (r) => r.p99 },
  { name: 'ms CPU per request', of: (r) => r.cpuMsPerRequest },
  { name: 'ok req/s', of: (r) => r.throughput },
];

const ratio = (a: number, b: number) => (b > 0 ? a / b : NaN);
const fixed = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');

export function runtimeReport(s: RuntimeRunSummary): string {
  const { newer, older } = s;
  const pair = (x: StepResult, name: string) => x.byRuntime[name]!;
  const figures = s.steps.flatMap((x) =>
    [newer, older].map(({ name }) => {
      const { verdict: v, floor: f } = pair(x, name);
      return `| ${x.step} | ${name}${x.first === name ? ' (first)' : ''} | ${v.throughput} | ${v.p50} / ${v.p99} | ${v.cpuMsPerRequest} | ${v.errors}, ${v.failOpen} | ${f.throughput} | ${f.p50} / ${f.p99} | ${f.cpuMsPerRequest} | ${f.errors} |`;
    }),
  );
  const overFloor = s.steps.flatMap((x) =>
    MEASURES.map((m) => {
      const side = (name: string) => {
        const { verdict, floor } = pair(x, name);
        return {
          text: `${m.of(verdict)} / ${m.of(floor)} = ${fixed(ratio(m.of(verdict), m.of(floor)))}`,
          value: ratio(m.of(verdict), m.of(floor)),
        };
      };
      const a = side(newer.name);
      const b = side(older.name);
      return `| ${x.step} | ${m.name} | ${a.text} | ${b.text} | ${fixed(ratio(a.value, b.value))} |`;
    }),
  );
  const sameServer = s.steps.flatMap((x) =>
    (['verdict', 'floor'] as const).map((server) => {
      const a = pair(x, newer.name)[server];
      const b = pair(x, older.name)[server];
      return `| ${x.step} | ${server} | ${MEASURES.map((m) => fixed(ratio(m.of(a), m.of(b)))).join(' | ')} |`;
    }),
  );
  return `${s.quick ? '> **Quick run** (BENCH_QUICK=1): short steps, for checking the harness only.\n\n' : ''}Node ${newer.version} beside Node ${older.version}, ${s.date}, commit ${s.commit}; ${s.machine}; load average ${s.loadAtStart} at the start, ${s.loadAtEnd} at the end; ${s.minutes.toFixed(1)} min.
Steps of ${s.settings.stepSeconds} s per rate (open loop) and ${s.settings.saturationSeconds} s at saturation (closed loop, ${s.settings.concurrency} concurrent), after ${s.settings.warmUpSeconds} s at 100 req/s through each server; "(first)" marks the runtime measured first in that step.

| step | runtime | verdict ok req/s | verdict p50 / p99 ms | verdict ms CPU per request | verdict errors, fail-opens | floor ok req/s | floor p50 / p99 ms | floor ms CPU per request | floor errors |
|---|---|---|---|---|---|---|---|---|---|
${figures.join('\n')}

Verdict over floor on each runtime, and ${newer.name}'s ratio over ${older.name}'s (below 1 for latency and CPU, above 1 for req/s: on ${newer.name} the verdict's own code costs less, against the same I/O floor, than on ${older.name}):

| step | measure | ${newer.name}: verdict / floor | ${older.name}: verdict / floor | ${newer.name} ÷ ${older.name} |
|---|---|---|---|---|
${overFloor.join('\n')}

The same server, ${newer.name} over ${older.name}:

| step | server | p50 | p99 | ms CPU per request | ok req/s |
|---|---|---|---|---|---|
${sameServer.join('\n')}
`;
}
