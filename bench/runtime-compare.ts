// `bash scripts/bench.sh --runtimes`: the verdict against the floor on two Node runtimes in one
// run. The runner's Node (the service's) and an older one (BENCH_BASELINE_NODE, by default
// /usr/bin/node) each run a verdict server (the compiled entry, `dist/server/cli/main.js serve
// --no-worker --no-graph-writer`, which scripts/bench.sh builds) and a floor server, all four at
// once on ports of their own; the graph writer and the load generator run on the runner's Node
// for both. Each server is warmed up, then every step of run-bench's table (each rate, then
// saturation) measures the verdict and the floor on one runtime and then on the other, the first
// runtime alternating from step to step, so the shared machine's drift falls on both alike. What
// it reports is ratios: verdict over floor per runtime, and the newer runtime's over the older's.
// Prints a Markdown section for docs/benchmarks-history.md and keeps it, with the raw figures, in
// .bench/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../test/support/free-port.js';
import { closedLoop, openLoop, type LoadResult } from './load-generator.js';
import { removeGraph } from './seed-growth.js';
import { log, openBenchRig, QUICK, RATES, SATURATION_CONCURRENCY, SATURATION_SECONDS, STEP_SECONDS, WARM_UP_SECONDS } from './bench-rig.js';
import { runtimeReport, type RuntimeRunSummary, type StepResult } from './runtime-report.js';

const COMPILED_ENTRY = 'dist/server/cli/main.js';
const baselineNode = process.env.BENCH_BASELINE_NODE ?? '/usr/bin/node';

interface Runtime {
  name: string;
  node: string;
  version: string;
  verdict: ChildProcess;
  floor: ChildProcess;
  verdictOrigin: string;
  floorOrigin: string;
}

const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = os.loadavg();
  if (!fs.existsSync(COMPILED_ENTRY))
    throw new Error(`${COMPILED_ENTRY} is missing: run through scripts/bench.sh --runtimes, which builds it`);
  const baselineVersion = execFileSync(baselineNode, ['--version']).toString().trim();
  if (major(baselineVersion) >= major(process.version)) {
    throw new Error(
      `BENCH_BASELINE_NODE (${baselineNode}) is Node ${baselineVersion}: name a runtime older than the runner's ${process.version}`,
    );
  }
  const rig = await openBenchRig();
  // One verdict server per runtime: the metrics listener is left off, so the two cannot fight
  // over its port; the counting itself is unchanged.
  const start = async (node: string, version: string): Promise<Runtime> => {
    const verdictPort = await freePort();
    const verdict = await rig.startServer([COMPILED_ENTRY, 'serve', '--no-worker', '--no-graph-writer'], verdictPort, node, {
      METRICS_PORT: '0',
    });
    const floorPort = await freePort();
    const floor = await rig.startServer(['--import', 'tsx', 'bench/floor-server.ts'], floorPort, node);
    log(`Node ${version}: verdict pid ${verdict.pid} on ${verdictPort}, floor pid ${floor.pid} on ${floorPort}`);
    return {
      name: `Node ${major(version)}`,
      node,
      version,
      verdict,
      floor,
      verdictOrigin: `http://127.0.0.1:${verdictPort}`,
      floorOrigin: `http://127.0.0.1:${floorPort}`,
    };
  };
  // The runner's servers first: its verdict server makes the device-signing key the other reads.
  const current = await start(process.execPath, process.version);
  const writer = rig.startWriter(process.execPath);
  const baseline = await start(baselineNode, baselineVersion);
  const runtimes = [current, baseline];

  const { traffic } = await rig.mintTraffic(current.verdictOrigin);
  log('warming up');
  for (const rt of runtimes) {
    await openLoop(rt.verdictOrigin, traffic(1), 100, WARM_UP_SECONDS);
    await openLoop(rt.floorOrigin, traffic(1), 100, WARM_UP_SECONDS);
  }

  const steps: { name: string; load: (origin: string) => Promise<LoadResult> }[] = [
    ...RATES.map((rate) => ({ name: `@ ${rate}/s`, load: (origin: string) => openLoop(origin, traffic(rate), rate, STEP_SECONDS) })),
    { name: 'saturation', load: (origin: string) => closedLoop(origin, traffic(7), SATURATION_CONCURRENCY, SATURATION_SECONDS) },
  ];
  const results: StepResult[] = [];
  for (const [i, step] of steps.entries()) {
    const order = i % 2 === 0 ? [current, baseline] : [baseline, current];
    const byRuntime: StepResult['byRuntime'] = {};
    for (const rt of order) {
      const verdict = await rig.measure(`verdict ${step.name}, ${rt.name}`, rt.verdict, () => step.load(rt.verdictOrigin));
      const floor = await rig.measure(`floor ${step.name}, ${rt.name}`, rt.floor, () => step.load(rt.floorOrigin));
      byRuntime[rt.name] = { verdict, floor };
    }
    results.push({ step: step.name, first: order[0]!.name, byRuntime });
  }

  await Promise.all([...runtimes.flatMap((rt) => [rig.stop(rt.verdict), rig.stop(rt.floor)]), rig.stop(writer)]);
  log("removing the run's graph data");
  await removeGraph(rig.deps, rig.scope);
  await rig.close();

  const summary: RuntimeRunSummary = {
    quick: QUICK,
    date: new Date().toISOString().slice(0, 10),
    commit:
      execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim() +
      (execFileSync('git', ['status', '--porcelain', '--untracked-files=no']).toString().trim() ? ' (with uncommitted changes)' : ''),
    machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    loadAtStart: loadAtStart.map((l) => l.toFixed(2)).join(' '),
    loadAtEnd: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    newer: { name: current.name, version: current.version },
    older: { name: baseline.name, version: baseline.version },
    settings: {
      stepSeconds: STEP_SECONDS,
      saturationSeconds: SATURATION_SECONDS,
      concurrency: SATURATION_CONCURRENCY,
      warmUpSeconds: WARM_UP_SECONDS,
    },
    minutes: (Date.now() - started) / 60_000,
    steps: results,
  };
  const markdown = runtimeReport(summary);
  fs.mkdirSync('.bench', { recursive: true });
  fs.writeFileSync('.bench/runtime-compare.md', markdown);
  fs.writeFileSync('.bench/runtime-compare.json', `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(markdown);
  log(
    `done in ${summary.minutes.toFixed(1)} min; the section is also in .bench/runtime-compare.md, the figures in .bench/runtime-compare.json`,
  );
}

await main();
