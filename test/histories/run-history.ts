// Runs one history's operations in order against the fleet, injecting and healing the
// faults between (or during) them; each operation is run-op.ts's.
import { describeOp, type FaultKind, type Inst, type Op } from './history-ops.js';
import type { HistoryState } from './history-state.js';
import type { World } from './history-world.js';
import { refusal, runOp, sleep } from './run-op.js';

// A fault armed to strike during the next operation strikes the instance that operation runs on;
// a fault is healed once `hold` more operations have run (or when the history settles).
export async function runHistory(world: World, s: HistoryState, ops: Op[]): Promise<void> {
  let armed: Extract<Op, { op: 'fault' }>[] = [];
  const activate = (fault: FaultKind, inst: Inst, hold: number) => {
    s.counters.faults[fault] += 1;
    if (!s.active.some((a) => a.fault === fault && a.inst === inst)) s.active.push({ fault, inst, left: hold });
  };
  for (const [n, o] of ops.entries()) {
    if (o.op === 'fault') {
      if (o.during) {
        armed.push(o);
        s.log.push(`${n}. ${describeOp(o)}: armed`);
        continue;
      }
      const injected = await world.inject(o.fault, o.inst, o.latencyMs);
      if (injected) activate(o.fault, o.inst, o.hold);
      s.log.push(`${n}. ${describeOp(o)}: ${injected ? 'injected' : 'nothing to do'}`);
      continue;
    }
    const started = Date.now();
    const start = () =>
      runOp(world, s, o).catch((err: unknown) => {
        const refused = refusal(err);
        if (refused) return refused;
        s.counters.statuses.thrown = (s.counters.statuses.thrown ?? 0) + 1;
        return `threw: ${String((err as Error).message ?? err).split('\n')[0]}`;
      });
    const faults = armed;
    armed = [];
    const restart = faults.find((f) => f.fault === 'pgRestart');
    let work: Promise<string>;
    if (restart) {
      const restarted = await world.restartDuring(o.inst, start);
      work = restarted.work;
      if (restarted.terminated > 0) activate('pgRestart', o.inst, restart.hold);
    } else {
      work = start();
    }
    for (const f of faults.filter((x) => x.fault !== 'pgRestart')) {
      await sleep(f.jitterMs);
      if (await world.inject(f.fault, o.inst, f.latencyMs)) activate(f.fault, o.inst, f.hold);
    }
    const line = await work;
    if (line.startsWith('skipped')) s.counters.skipped += 1;
    s.log.push(
      `${n}. ${describeOp(o)}: ${line} (${Date.now() - started} ms)${faults.length > 0 ? ` [struck during it: ${faults.map((f) => `${f.fault} on ${'AB'[o.inst]}`).join(', ')}]` : ''}`,
    );
    for (const a of s.active) a.left -= 1;
    for (const a of s.active.filter((x) => x.left <= 0)) {
      await world.heal(a.fault, a.inst);
      s.log.push(`   healed ${a.fault} on ${'AB'[a.inst]}`);
    }
    s.active = s.active.filter((x) => x.left > 0);
  }
}
