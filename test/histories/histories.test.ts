// Randomized histories with faults: fast-check generates short histories of what users
// and operators do (history-ops.ts) with faults interleaved (the graph writer stopped or its
// session killed, a `doorman worker` killed with SIGKILL, an instance's Postgres connections all
// terminated, its LISTEN connections cut silently, Neo4j slow), runs each on a tenant of its own
// against two running instances (history-world.ts), lets it settle, and checks the invariants
// (history-checks.ts). A failing history is shrunk to a minimal one and printed with its seed,
// its log and the differences found.
//
// HISTORY_RUNS (default 15) histories, with seeds HISTORY_SEED (default: from the clock), +1, …;
// one history again: HISTORY_SEED=<its seed> HISTORY_RUNS=1, or HISTORY_REPLAY='<its ops as
// JSON>' as a report prints it. HISTORY_WORKER=0 runs no worker child. HISTORY_STRICT=1 fails on
// the known findings (findings.ts) too; HISTORY_FINDINGS=0 skips replaying the histories of what
// was found; HISTORY_VERBOSE=1 prints every history. `npm run verify:histories` runs many and prints
// the summary (scripts/verify-histories.sh).
import fc from 'fast-check';
import type { Deps } from '../../src/deps.js';
import { aTenant } from '../support/fixtures.js';
import { call } from '../support/api-client.js';
import { processGraphWriter } from '../support/root-hooks.js';
import { testDeps } from '../support/test-deps.js';
import { anomalyLine, checkGraph, checkKeys, checkStored, settle } from './history-checks.js';
import { checkFreshVerdicts } from './fresh-verdicts.js';
import { FAULTS, historyArb, POOL, type Op } from './history-ops.js';
import { newState, type Anomaly, type HistoryState } from './history-state.js';
import { runHistory } from './run-history.js';
import { startWorld, type World } from './history-world.js';
import { FINDINGS, KNOWN } from './findings.js';

const RUNS = Number(process.env.HISTORY_RUNS ?? 15);
const SEED = Number(process.env.HISTORY_SEED ?? Date.now() % 1_000_000_000);
const MAX_OPS = Number(process.env.HISTORY_MAX_OPS ?? 25);
const STRICT = process.env.HISTORY_STRICT === '1';
// HISTORY_VERBOSE=1 prints every history's log, not only the failing ones'.
const VERBOSE = process.env.HISTORY_VERBOSE === '1';
// Shrinking reruns a history many times; past this (in all, over the run) it stops and reports
// the smallest found so far.
const SHRINK_MS = Number(process.env.HISTORY_SHRINK_SECONDS ?? 120) * 1000;
// A history takes seconds; this bounds a run that hangs.
const HISTORY_BOUND_MS = 60_000;
let shrinkingSince: number | undefined;

interface Totals {
  histories: number;
  reruns: number;
  ops: number;
  skipped: number;
  faults: Record<string, number>;
  statuses: Record<string, number>;
  anomalies: number;
  known: Record<string, number>;
  failing: { seed: number; report: string }[];
}

const totals: Totals = {
  histories: 0,
  reruns: 0,
  ops: 0,
  skipped: 0,
  faults: Object.fromEntries(FAULTS.map((f) => [f, 0])),
  statuses: {},
  anomalies: 0,
  known: {},
  failing: [],
};

async function deviceTokens(world: World, pk: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let n = 0; n < POOL.devices; n++) {
    const res = await call(world.instances[0].base, 'POST', '/v1/device', {
      key: pk,
      body: { components: { canvas: `history-device-${n}` } },
    });
    if (res.status !== 200) throw new Error(`POST /v1/device answered ${res.status}: ${JSON.stringify(res.body)}`);
    tokens.push(res.body.device_token as string);
  }
  return tokens;
}

// One history, from a tenant of its own to its checked end.
async function runOne(world: World, deps: Deps, ops: Op[]): Promise<HistoryState> {
  const tenant = await aTenant(deps, 'history');
  const s = newState({ tenantId: tenant.tenantId, mode: 'test' }, { sk: tenant.keys.sk_test, pk: tenant.keys.pk_test });
  s.deviceTokens = await deviceTokens(world, s.pk);
  s.deviceIds = s.deviceTokens.map((t) => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()).sub as string);
  await runHistory(world, s, ops);
  await settle(world, deps, s);
  await checkGraph(deps, s);
  await checkKeys(world, deps, s);
  await checkFreshVerdicts(world, deps, s);
  await settle(world, deps, s);
  await checkStored(deps, s);
  for (const a of s.anomalies) a.known = KNOWN.find((k) => k.explains(a, s))?.id;
  return s;
}

// What kind of failure an anomaly is, for shrinking: its kind, and for a graph difference its
// type, what it is about and the fact (a cluster's `confirmedAbuse`, say), not which node.
function signatures(a: Anomaly): string[] {
  if (a.kind !== 'graph_differs') return [a.kind];
  return (a.detail.differences as { type: string; what: string; subject: string }[]).map((d) => {
    const fact = d.what === 'cluster' && d.subject.includes(' ') ? `:${d.subject.split(' ').at(-1)}` : '';
    return `graph_differs/${d.type}:${d.what}${fact}`;
  });
}

function report(seed: number, s: HistoryState, details?: fc.RunDetails<[Op[]]>): string {
  const ops = details?.counterexample?.[0];
  return [
    `history seed ${seed}${details ? ` shrunk (fast-check path ${details.counterexamplePath}, ${details.numShrinks} shrinks)` : ''}, tenant ${s.scope.tenantId}:`,
    ...s.log.map((l) => `  ${l}`),
    'anomalies:',
    ...s.anomalies.map((a) => `  ${anomalyLine(a)}`),
    `reproduce: HISTORY_SEED=${seed} HISTORY_RUNS=1 npm run verify:histories`,
    ...(ops ? [`replay this history alone: HISTORY_REPLAY='${JSON.stringify(ops)}' npm run verify:histories`] : []),
  ].join('\n');
}

function summary(started: number): string {
  const faults = Object.entries(totals.faults)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const statuses = Object.entries(totals.statuses)
    .sort()
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const known =
    Object.entries(totals.known)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  return [
    `[histories] ${totals.histories} histories (seeds ${SEED}..${SEED + RUNS - 1}) in ${Math.round((Date.now() - started) / 1000)} s, ${totals.reruns} reruns while shrinking`,
    `[histories] ${totals.ops} operations (${totals.skipped} with nothing to act on); answers (HTTP statuses, and use cases that threw): ${statuses}`,
    `[histories] faults injected: ${faults}`,
    `[histories] anomalies: ${totals.anomalies} (known findings: ${known}); failing histories: ${totals.failing.map((f) => f.seed).join(', ') || 'none'}`,
  ].join('\n');
}

describe('randomized histories with faults', function () {
  let world: World;
  const deps = testDeps();

  before(async function () {
    this.timeout(120_000);
    // The two instances (and the worker child) apply the outbox, not this process's root writer.
    await processGraphWriter().stop();
    world = await startWorld({ worker: process.env.HISTORY_WORKER !== '0' });
  });
  after(async function () {
    this.timeout(120_000);
    await world?.close();
    await processGraphWriter().start();
  });

  if (process.env.HISTORY_FINDINGS !== '0' && !process.env.HISTORY_REPLAY) {
    it(`the histories of what was found (findings.ts: ${FINDINGS.map((f) => f.id).join(', ')}) hold every invariant once mended`, async function () {
      this.timeout(FINDINGS.length * HISTORY_BOUND_MS);
      const failing: string[] = [];
      for (const f of FINDINGS) {
        const s = await runOne(world, deps, f.history);
        const shown = s.anomalies.filter((a) => STRICT || a.known !== f.id || f.mended);
        const state = f.mended
          ? shown.length > 0
            ? 'SHOWS AGAIN'
            : 'mended'
          : s.anomalies.some((a) => a.known === f.id)
            ? 'still shows (known)'
            : 'NO LONGER SHOWS: give it its `mended`';
        process.stdout.write(`      ${f.id} ${state}${f.mended ? ` in ${f.mended.split(' ')[0]}` : ''}: ${f.title.slice(0, 100)}…\n`);
        if (shown.length > 0) failing.push(`${f.id}:\n${report(0, s)}`);
      }
      if (failing.length > 0) throw new Error(failing.join('\n\n'));
    });
  }

  // HISTORY_REPLAY='[…]': one given history (a shrunk one, as a report prints it), checked once.
  if (process.env.HISTORY_REPLAY) {
    it('the given history holds every invariant', async function () {
      this.timeout(HISTORY_BOUND_MS);
      const s = await runOne(world, deps, JSON.parse(process.env.HISTORY_REPLAY!) as Op[]);
      process.stdout.write(`${report(0, s)}\n`);
      const failing = s.anomalies.filter((a) => STRICT || !a.known);
      if (failing.length > 0) throw new Error(failing.map(anomalyLine).join('\n'));
    });
    return;
  }

  it(`${RUNS} histories of up to ${MAX_OPS} operations hold every invariant`, async function () {
    this.timeout(RUNS * HISTORY_BOUND_MS + SHRINK_MS + HISTORY_BOUND_MS);
    const started = Date.now();
    for (let n = 0; n < RUNS; n++) {
      const seed = SEED + n;
      let first = true;
      let smallest: HistoryState | undefined;
      let target: string | undefined;
      const details = await fc.check(
        fc.asyncProperty(historyArb(MAX_OPS), async (ops) => {
          if (!first) {
            fc.pre(shrinkingSince === undefined || Date.now() - shrinkingSince < SHRINK_MS);
            totals.reruns += 1;
          }
          const s = await runOne(world, deps, ops);
          if (first) {
            first = false;
            totals.histories += 1;
            totals.ops += ops.length;
            totals.skipped += s.counters.skipped;
            for (const [k, v] of Object.entries(s.counters.faults)) totals.faults[k] = (totals.faults[k] ?? 0) + v;
            for (const [k, v] of Object.entries(s.counters.statuses)) totals.statuses[k] = (totals.statuses[k] ?? 0) + v;
            totals.anomalies += s.anomalies.length;
            for (const a of s.anomalies) if (a.known) totals.known[a.known] = (totals.known[a.known] ?? 0) + 1;
            if (VERBOSE || s.anomalies.length > 0) process.stdout.write(`${report(seed, s)}\n`);
          }
          const failing = s.anomalies.filter((a) => STRICT || !a.known);
          const found = failing.flatMap(signatures);
          // Shrinking keeps to the first failure found: another one on the way is not the one
          // being made smaller (it is printed with the history that first showed it).
          target ??= found[0];
          if (target === undefined || !found.includes(target)) return true;
          shrinkingSince ??= Date.now();
          smallest = s;
          throw new Error(failing.map(anomalyLine).join('\n'));
        }),
        { seed, numRuns: 1, unbiased: true },
      );
      if (details.failed && smallest) {
        const text = report(seed, smallest, details);
        process.stdout.write(`${text}\n`);
        totals.failing.push({ seed, report: text });
      }
      process.stdout.write(`      history ${n + 1}/${RUNS} (seed ${seed}): ${details.failed ? 'FAILED' : 'ok'}\n`);
    }
    process.stdout.write(`${summary(started)}\n`);
    if (totals.failing.length > 0)
      throw new Error(
        `${totals.failing.length} of ${RUNS} histories broke an invariant:\n\n${totals.failing.map((f) => f.report).join('\n\n')}`,
      );
  });
});
