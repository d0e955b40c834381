// `npm run bench`: verdict latency and throughput against its floor (the honest floor, making the
// verdict's store calls, and the old floor before issue 44, to show the change of baseline), the
// graph read alone and with one core hogged, and cost as stored data grows. Needs the local stack
// up (scripts/bench.sh brings it up and builds). Every load targets loopback, is bounded in count
// and time, and stops by itself. Writes docs/benchmarks.md and docs/benchmarks-latency.svg, and
// appends the run's row to docs/benchmarks-history.md.
import { execSync } from 'node:child_process';
import os from 'node:os';
import { freePort } from '../test/support/free-port.js';
import { closedLoop, openLoop, type LoadResult } from './load-generator.js';
import { removeGraph, seedEvents, seedGraph, settle } from './seed-growth.js';
import { probeReadYourWrites, type ProbeResult } from './read-your-writes.js';
import { writeReport, type BacktestResult, type Run } from './report.js';
import { graphReadAlone, type GraphReadResult } from './graph-read-alone.js';
import { runGraphQuality } from './graph-quality/run-graph-quality.js';
import {
  HOGGED_RATE,
  log,
  openBenchRig,
  QUICK,
  RATE_LIMIT,
  RATES,
  SATURATION_CONCURRENCY,
  SATURATION_SECONDS,
  STEP_SECONDS,
  WARM_UP_SECONDS,
} from './bench-rig.js';

const SUSTAIN_SECONDS = QUICK ? 10 : 60;
const GROWTH = QUICK ? [10_000, 100_000] : [10_000, 1_000_000];
const CONTENDED_RATE = 150;
// The read-your-writes probe runs beside the measured load: pairs per second.
const PROBE_RATE = 5;

async function main(): Promise<void> {
  const started = Date.now();
  const rig = await openBenchRig();
  const { deps, tenant, scope, measure, drainOutbox } = rig;

  const verdictPort = await freePort();
  const verdict = await rig.startServer(['bin/doorman.js', 'serve', '--no-worker', '--no-graph-writer'], verdictPort);
  const writer = rig.startWriter();
  const floorPort = await freePort();
  const floor = await rig.startServer(['--import', 'tsx', 'bench/floor-server.ts'], floorPort);
  const oldFloorPort = await freePort();
  const oldFloor = await rig.startServer(['--import', 'tsx', 'bench/floor-old-server.ts'], oldFloorPort);

  const { traffic, contended } = await rig.mintTraffic(`http://127.0.0.1:${verdictPort}`);
  const origin = `http://127.0.0.1:${verdictPort}`;
  const probe = (seconds: number) => probeReadYourWrites(origin, tenant.keys.sk_test, deps.graph, scope, PROBE_RATE, seconds);
  // Load and probe at once; the probe's figures go with the run's.
  const withProbe = async (label: string, seconds: number, load: () => Promise<LoadResult>): Promise<{ run: Run; probe: ProbeResult }> => {
    await drainOutbox(label);
    const [run, probed] = await Promise.all([measure(label, verdict, load, false), probe(seconds)]);
    log(
      `${label}: link lag p50 ${probed.lagP50} ms, p99 ${probed.lagP99} ms; next event 100 ms later saw the link in ${probed.seenPercent}% of ${probed.pairs}`,
    );
    return { run, probe: probed };
  };

  log('warming up');
  await openLoop(`http://127.0.0.1:${verdictPort}`, traffic(1), 100, WARM_UP_SECONDS);
  await openLoop(`http://127.0.0.1:${floorPort}`, traffic(1), 100, WARM_UP_SECONDS);
  await openLoop(`http://127.0.0.1:${oldFloorPort}`, traffic(1), 100, WARM_UP_SECONDS);

  // Each rate and the saturation: the verdict, the honest floor, the old floor, in that order.
  const rates: { rate: number; verdict: Run; floor: Run; oldFloor: Run }[] = [];
  for (const rate of RATES) {
    const v = await measure(`verdict @${rate}/s`, verdict, () =>
      openLoop(`http://127.0.0.1:${verdictPort}`, traffic(rate), rate, STEP_SECONDS),
    );
    const f = await measure(`floor (honest) @${rate}/s`, floor, () =>
      openLoop(`http://127.0.0.1:${floorPort}`, traffic(rate), rate, STEP_SECONDS),
    );
    const o = await measure(`floor (old) @${rate}/s`, oldFloor, () =>
      openLoop(`http://127.0.0.1:${oldFloorPort}`, traffic(rate), rate, STEP_SECONDS),
    );
    rates.push({ rate, verdict: v, floor: f, oldFloor: o });
  }
  const saturation = {
    verdict: await measure('verdict saturation', verdict, () =>
      closedLoop(`http://127.0.0.1:${verdictPort}`, traffic(7), SATURATION_CONCURRENCY, SATURATION_SECONDS),
    ),
    floor: await measure('floor (honest) saturation', floor, () =>
      closedLoop(`http://127.0.0.1:${floorPort}`, traffic(7), SATURATION_CONCURRENCY, SATURATION_SECONDS),
    ),
    oldFloor: await measure('floor (old) saturation', oldFloor, () =>
      closedLoop(`http://127.0.0.1:${oldFloorPort}`, traffic(7), SATURATION_CONCURRENCY, SATURATION_SECONDS),
    ),
  };

  // The graph read: alone from this process (idle, then with one core hogged), and the verdict
  // @200/s with one core hogged (its fail-opens, and its read's duration from Server-Timing).
  const readAlone = async (label: string, hogged: boolean): Promise<GraphReadResult> => {
    await drainOutbox(label);
    const hog = hogged ? rig.startHog(STEP_SECONDS) : undefined;
    try {
      const result = await graphReadAlone(rig, label, traffic(17), HOGGED_RATE, STEP_SECONDS);
      log(
        `${label}: ${result.reads} reads, p50 ${result.p50} ms, p99 ${result.p99}, max ${result.max}, over 150 ms ${result.over150}, over 250 ms ${result.over250}, failed ${result.failed}, skipped ${result.skipped}`,
      );
      return result;
    } finally {
      if (hog) await rig.stopHog(hog);
    }
  };
  const graphAloneIdle = await readAlone(`graph read alone @${HOGGED_RATE}/s`, false);
  const graphAloneHogged = await readAlone(`graph read alone @${HOGGED_RATE}/s, one core hogged`, true);
  const hoggedVerdict = await measure(`verdict @${HOGGED_RATE}/s, one core hogged`, verdict, async () => {
    const hog = rig.startHog(STEP_SECONDS);
    try {
      return await openLoop(`http://127.0.0.1:${verdictPort}`, traffic(19), HOGGED_RATE, STEP_SECONDS);
    } finally {
      await rig.stopHog(hog);
    }
  });
  const graphFailOpens = (r: Run) => (r.failOpenSources['timeout:graph'] ?? 0) + (r.failOpenSources['unavailable:graph'] ?? 0);
  log(
    `verdict @${HOGGED_RATE}/s, one core hogged: graph fail-opens ${graphFailOpens(hoggedVerdict)} of ${hoggedVerdict.sent} (${hoggedVerdict.sent ? ((100 * graphFailOpens(hoggedVerdict)) / hoggedVerdict.sent).toFixed(2) : '0'}%), p50 ${hoggedVerdict.p50} ms, p99 ${hoggedVerdict.p99} ms, graph read p99 ${hoggedVerdict.graphP99} ms`,
  );
  const contention = {
    open: await withProbe(`contended @${CONTENDED_RATE}/s`, STEP_SECONDS, () =>
      openLoop(origin, contended(11), CONTENDED_RATE, STEP_SECONDS),
    ),
    saturation: await measure('contended saturation', verdict, () =>
      closedLoop(origin, contended(13), SATURATION_CONCURRENCY, SATURATION_SECONDS),
    ),
  };

  const growth: { events: number; run: Run; probe: ProbeResult }[] = [];
  let loaded = 0;
  for (const size of GROWTH) {
    log(`loading stored history up to ${size} events`);
    const t = Date.now();
    await seedEvents(deps, scope, loaded, size);
    await seedGraph(deps, scope, loaded, size);
    loaded = size;
    await settle(deps);
    log(`loaded and settled in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    // Unmeasured: caches warm up on the grown data first.
    await openLoop(`http://127.0.0.1:${verdictPort}`, traffic(size + 1), 200, QUICK ? 3 : 10);
    growth.push({
      events: size,
      ...(await withProbe(`verdict @200/s, ${size} stored`, SUSTAIN_SECONDS, () => openLoop(origin, traffic(size), 200, SUSTAIN_SECONDS))),
    });
  }

  await Promise.all([rig.stop(verdict), rig.stop(floor), rig.stop(oldFloor), rig.stop(writer)]);
  // Policy backtests: stored events evaluated per second, in a tenant of its own.
  log('backtest throughput');
  const backtest = JSON.parse(
    execSync(`node --import tsx bench/backtest-throughput.ts ${QUICK ? 30_000 : 300_000}`, {
      env: process.env,
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    })
      .toString()
      .trim()
      .split('\n')
      .at(-1)!,
  ) as BacktestResult;
  log("removing the run's graph data");
  await removeGraph(deps, scope);
  await rig.close();
  // The identity graph's quality against ground truth (docs/graph-quality.md), in a tenant of its
  // own on this database (the step deletes its graph when it ends).
  log('graph quality (bench/graph-quality)');
  const graphQuality = await runGraphQuality({ label: 'bench', scale: QUICK ? 0.25 : 1 });

  writeReport({
    quick: QUICK,
    machine: {
      cores: os.cpus().length,
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      cpu: os.cpus()[0]?.model ?? '',
      load: os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' '),
    },
    versions: {
      node: process.version,
      postgres: execSync('psql --version').toString().trim(),
      redis: execSync('redis-server --version').toString().trim().split(' ').slice(0, 3).join(' '),
      neo4j: '5.26.30 Community',
    },
    settings: {
      stepSeconds: STEP_SECONDS,
      sustainSeconds: SUSTAIN_SECONDS,
      saturationSeconds: SATURATION_SECONDS,
      concurrency: SATURATION_CONCURRENCY,
      rateLimit: RATE_LIMIT,
      hoggedRate: HOGGED_RATE,
    },
    rates,
    saturation,
    graphRead: { aloneIdle: graphAloneIdle, aloneHogged: graphAloneHogged, hoggedVerdict },
    contention,
    growth,
    backtest,
    graphQuality,
    minutes: (Date.now() - started) / 60_000,
    commit: commitOf(),
  });
  log(`done in ${((Date.now() - started) / 60_000).toFixed(1)} min; wrote docs/benchmarks.md`);
}

// The checkout's commit for the history row, marked when the tree has changes.
function commitOf(): string {
  try {
    const head = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    const dirty = execSync('git status --porcelain --untracked-files=no', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return 'unknown';
  }
}

await main();
