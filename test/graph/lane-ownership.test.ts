// Lane ownership against the real Postgres: two ownerships on one database never hold the same
// lane, each lane taken once however often acquiring overlaps (its epoch raised once); a lost
// session frees its lanes for the other at once; a released lane is unlocked even when its lock
// was taken twice, and is not taken back before its backoff is over, which doubles per failure
// and starts over once a batch passed; the fence is passed only while the lock is held; a
// NOTIFY names the lanes to wake. This process's own graph writer is stopped meanwhile.
import { expect } from 'chai';
import { pino } from 'pino';
import { OUTBOX_CHANNEL } from '../../src/graph/graph-outbox.js';
import { createLaneOwnership, type LaneOwnership } from '../../src/graph/lane-ownership.js';
import { LOCK_CLASS } from '../../src/graph/lane-store.js';
import { until } from '../support/processes.js';
import { processGraphWriter } from '../support/root-hooks.js';
import { testDeps } from '../support/test-deps.js';

describe('lane ownership', function () {
  this.timeout(30_000);
  const deps = testDeps();
  const logged: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  const opened: LaneOwnership[] = [];
  const woken: number[][] = [];
  const taken: number[] = [];

  function anOwnership(): LaneOwnership {
    const settings = { sessionQueryTimeoutMs: 2000, sessionIdleTimeoutMs: 15_000 };
    const o = createLaneOwnership({ databaseUrl: deps.config.databaseDirectUrl, log }, settings, {
      stopping: () => false,
      woken: (lanes) => void woken.push(lanes),
      taken: (lane) => void taken.push(lane),
    });
    opened.push(o);
    return o;
  }

  beforeEach(async () => {
    logged.length = 0;
    woken.length = 0;
    taken.length = 0;
    await processGraphWriter().stop();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
    await processGraphWriter().start();
  });

  const pidOf = async (o: LaneOwnership) =>
    (await o.onSession(o.session()!, (c) => c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))).rows[0]!.pid;
  // Each lane's lock holders in this database (a service beside the tests holds its own).
  const holders = async (): Promise<Map<number, number[]>> => {
    const { rows } = await deps.db.query<{ lane: number; pid: number }>(
      `SELECT objid::int AS lane, pid FROM pg_locks
        WHERE locktype = 'advisory' AND classid = $1 AND granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [LOCK_CLASS],
    );
    const byLane = new Map<number, number[]>();
    for (const r of rows) byLane.set(r.lane, [...(byLane.get(r.lane) ?? []), r.pid]);
    return byLane;
  };
  // What each ownership believes it owns is what its session holds, and no lane is held twice.
  async function expectApart(a: LaneOwnership, b: LaneOwnership) {
    expect(
      [...a.lanes()].filter((l) => b.owns(l)),
      'lanes both believe they own',
    ).to.deep.equal([]);
    const [locks, pa, pb] = [await holders(), await pidOf(a), await pidOf(b)];
    for (const [lane, pids] of locks) expect(pids, `holders of lane ${lane}`).to.have.length(1);
    for (const lane of a.lanes()) expect(locks.get(lane), `lane ${lane} of the first`).to.deep.equal([pa]);
    for (const lane of b.lanes()) expect(locks.get(lane), `lane ${lane} of the second`).to.deep.equal([pb]);
  }
  const epochs = async () =>
    (await deps.db.query<{ epoch: string }>('SELECT epoch FROM graph_lane_epochs ORDER BY lane')).rows.map((r) => Number(r.epoch));

  it('never lets two ownerships on one database hold the same lane, however they race and release', async () => {
    const [a, b] = [anOwnership(), anOwnership()];
    await Promise.all([a.acquire(), b.acquire()]);
    expect(a.lanes().size + b.lanes().size).to.equal(16);
    await expectApart(a, b);
    expect(
      [...taken].sort((x, y) => x - y),
      'each lane taken reported once',
    ).to.deep.equal(Array.from({ length: 16 }, (_, l) => l));
    // Each lets half of its lanes go, then both race for them, over and over.
    for (let round = 0; round < 6; round++) {
      for (const o of [a, b]) {
        for (const lane of [...o.lanes()].filter((_, i) => i % 2 === round % 2)) await o.release(lane, new Error('test'));
      }
      await Promise.all([a.acquire(), b.acquire(), a.acquire(), b.acquire()]);
      await expectApart(a, b);
    }
    // Once both have run past every backoff, the lanes are all held again, each once.
    await until(
      'every lane held again',
      async () => {
        await Promise.all([a.acquire(), b.acquire()]);
        return a.lanes().size + b.lanes().size === 16 ? true : undefined;
      },
      20_000,
    );
    await expectApart(a, b);
  });

  it('takes each lane once however often acquiring overlaps: its epoch is raised once', async () => {
    const before = await epochs();
    const a = anOwnership();
    await Promise.all(Array.from({ length: 8 }, () => a.acquire()));
    expect(a.lanes().size).to.equal(16);
    const after = await epochs();
    expect(after.map((e, lane) => e - before[lane]!)).to.deep.equal(Array.from({ length: 16 }, () => 1));
    for (let lane = 0; lane < 16; lane++) expect(a.epochOf(lane), `the epoch held for lane ${lane}`).to.equal(after[lane]);
  });

  it('frees the lanes of a lost session for another ownership at once', async () => {
    const [a, b] = [anOwnership(), anOwnership()];
    await a.acquire();
    await b.acquire();
    expect([a.lanes().size, b.lanes().size]).to.deep.equal([16, 0]);
    // The session's backend ends (as when Postgres or the network drops it).
    await deps.db.query('SELECT pg_terminate_backend($1)', [await pidOf(a)]);
    await until('the first to find its session lost', async () => (a.session() === undefined ? true : undefined), 5000);
    expect(a.lanes().size).to.equal(0);
    expect(logged.find((l) => l.msg === 'graph writer lost its Postgres session; lanes released')).to.include({ lanes: 16 });
    await b.acquire();
    expect(b.lanes().size).to.equal(16);
    // The first reconnects and finds nothing free.
    await a.acquire();
    expect(a.session()).to.not.equal(undefined);
    expect(a.lanes().size).to.equal(0);
    await expectApart(a, b);
  });

  it('unlocks a released lane even when its lock was taken twice, and backs off before taking it again, doubling per failure', async () => {
    const a = anOwnership();
    await a.acquire();
    // Lane 5's lock taken a second time on the same session (advisory locks stack).
    await a.onSession(a.session()!, (c) => c.query('SELECT pg_advisory_lock($1, 5)', [LOCK_CLASS]));
    const retryIns: unknown[] = [];
    for (const expected of [250, 500, 1000]) {
      const released = Date.now();
      await a.release(5, new Error(`batch failed (${expected})`));
      expect(a.owns(5)).to.equal(false);
      expect((await holders()).get(5), 'lane 5 unlocked').to.equal(undefined);
      retryIns.push(logged.filter((l) => l.msg === 'graph writer could not apply a batch; lane released').at(-1)?.retry_in_ms);
      await a.acquire();
      // Not taken back before its backoff is over (a slow machine may reach this after it).
      if (a.owns(5)) expect(Date.now() - released, 'taken back only after its backoff').to.be.at.least(expected);
      await until(
        'lane 5 taken back',
        async () => {
          await a.acquire();
          return a.owns(5) ? true : undefined;
        },
        5000,
      );
      expect(Date.now() - released).to.be.at.least(expected);
    }
    expect(retryIns).to.deep.equal([250, 500, 1000]);
    // A batch of the lane passed: the next release waits the shortest time again.
    a.passed(5);
    await a.release(5, new Error('batch failed again'));
    const last = logged.filter((l) => l.msg === 'graph writer could not apply a batch; lane released').at(-1);
    expect(last).to.include({ lane: 5, retry_in_ms: 250 });
  });

  it('moves its epoch past a fence only while its session holds the lane, and drops a lane it no longer holds', async () => {
    const a = anOwnership();
    await a.acquire();
    const epoch = a.epochOf(3)!;
    const {
      rows: [row],
    } = await deps.db.query<{ fence_key: string }>('SELECT fence_key FROM graph_lane_epochs WHERE lane = 3');
    expect(a.fenceOf(3, epoch)).to.deep.equal({ lane: 3, epoch, key: row!.fence_key });
    expect(await a.passFence(a.session()!, 3, epoch, epoch + 100)).to.equal(true);
    expect(a.epochOf(3)).to.equal(epoch + 101);
    expect((await epochs())[3]).to.equal(epoch + 101);
    // Lane 4's lock is no longer this session's (as when another owner has it): it is dropped.
    await a.onSession(a.session()!, (c) => c.query('SELECT pg_advisory_unlock($1, 4)', [LOCK_CLASS]));
    const before = (await epochs())[4];
    expect(await a.passFence(a.session()!, 4, a.epochOf(4)!, a.epochOf(4)! + 100)).to.equal(false);
    expect([a.owns(4), a.epochOf(4), (await epochs())[4]]).to.deep.equal([false, undefined, before]);
    expect(logged.map((l) => l.msg)).to.include('graph writer lost a lane to a newer owner; its batch was refused');
  });

  it('reports the lanes a NOTIFY names, and none for a NOTIFY naming none', async () => {
    const a = anOwnership();
    await a.acquire();
    await deps.db.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, '3,7']);
    await deps.db.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, '']);
    await until('both notifications', async () => (woken.length >= 2 ? true : undefined), 5000);
    expect(woken).to.deep.equal([[3, 7], []]);
  });
});
