// One batch of a lane against the real Postgres and Neo4j: a row Neo4j refuses as invalid is set
// aside and the rest of its batch applied and deleted; a batch that fails for another reason is
// split at once (the lane's limit halved) down to the failing row, the limit doubling back as
// batches pass; an outage leaves the limit as it is. This process's own graph writer is stopped
// meanwhile, so the lane holds only what the test puts in it.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import { createBatchApply, type BatchApply } from '../../src/graph/apply-batch.js';
import type { LaneFence } from '../../src/graph/apply-graph-ops.js';
import { insertGraphOps, lanesWithWork } from '../../src/graph/graph-outbox-store.js';
import { graphLinkOf } from '../../src/graph/identity-graph.js';
import type { SessionRunner } from '../../src/graph/lane-ownership.js';
import { createPoisonRows } from '../../src/graph/poison-rows.js';
import { aTenant } from '../support/fixtures.js';
import { freePort } from '../support/processes.js';
import { processGraphWriter } from '../support/root-hooks.js';
import { testDeps } from '../support/test-deps.js';

describe('applying a batch', function () {
  this.timeout(30_000);
  const deps = testDeps();
  const silent = pino({ level: 'silent' });
  const onSession: SessionRunner = (client, fn) => fn(client);
  let client: pg.Client;
  const fences: string[] = [];

  beforeEach(async () => {
    await processGraphWriter().stop();
    client = new pg.Client({ connectionString: deps.config.databaseDirectUrl });
    await client.connect();
  });
  afterEach(async () => {
    await client.end();
    await deps.graph.executeQuery('MATCH (f:LaneFence) WHERE f.key IN $keys DELETE f', { keys: fences.splice(0) });
    await processGraphWriter().start();
  });

  // A scope whose lane holds nothing yet, and a fence of the test's own for that lane.
  async function anEmptyLane() {
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const {
      rows: [r],
    } = await deps.db.query<{ lane: number }>("SELECT hashtext($1 || ':' || $2) & 15 AS lane", [scope.tenantId, scope.mode]);
    const lane = r!.lane;
    expect(await lanesWithWork(deps.db, [lane]), `lane ${lane} empty`).to.deep.equal([]);
    const fence: LaneFence = { lane, epoch: 1, key: `fence_test_${randomUUID()}` };
    fences.push(fence.key);
    return { scope, lane, fence };
  }
  const link = (scope: { tenantId: string; mode: 'test' }, eventId: string, account: string) =>
    graphLinkOf(scope, { eventId, eventType: 'signup', at: Date.now(), account }, 25)!;
  const eventCount = async (tenantId: string, id: string) =>
    Number(
      (
        await deps.graph.executeQuery('MATCH (e:Event {tenantId: $t, mode: "test", id: $id}) RETURN count(e) AS n', { t: tenantId, id })
      ).records[0]?.get('n'),
    );
  const waiting = async (tenantId: string) =>
    (
      await deps.db.query<{ event_id: string; failed: boolean }>(
        'SELECT event_id, failed_at IS NOT NULL AS failed FROM graph_outbox WHERE tenant_id = $1 ORDER BY seq',
        [tenantId],
      )
    ).rows;
  function aBatchApply(batchSize: number, applyTimeoutMs: number, graph = deps.graph): { batches: BatchApply; passed: number[] } {
    const passed: number[] = [];
    const poison = createPoisonRows({ log: silent, onSession });
    const batchDeps = { graph, cypher: deps.cypher, log: silent, onSession, poison, passed: (lane: number) => void passed.push(lane) };
    const batches = createBatchApply(batchDeps, { batchSize, applyTimeoutMs });
    return { batches, passed };
  }

  it('sets aside a row Neo4j refuses as invalid and applies and deletes the rest of its batch', async () => {
    const { scope, lane, fence } = await anEmptyLane();
    const bad = { ...link(scope, 'evt_invalid', 'invalid'), ids: [{ kind: 'phone', value: null as unknown as string }] };
    const payloads = [link(scope, 'evt_ok_1', 'ok_1'), bad, link(scope, 'evt_ok_2', 'ok_2')];
    await insertGraphOps(
      deps.db,
      scope,
      payloads.map((payload) => ({ kind: 'link' as const, payload })),
    );
    const { batches, passed } = aBatchApply(10, 10_000);
    const step = await batches.next(client, lane, fence);
    expect(step).to.include({ kind: 'applied', read: 3 });
    expect(step.kind === 'applied' && step.lags).to.have.length(2);
    expect(await waiting(scope.tenantId)).to.deep.equal([{ event_id: 'evt_invalid', failed: true }]);
    const counts = [];
    for (const id of ['evt_ok_1', 'evt_invalid', 'evt_ok_2']) counts.push(await eventCount(scope.tenantId, id));
    expect(counts).to.deep.equal([1, 0, 1]);
    expect(batches.setAside()).to.equal(1);
    expect(passed).to.deep.equal([lane]);
    expect(await batches.next(client, lane, fence)).to.deep.equal({ kind: 'empty' });
  });

  it('halves the batch limit on a failure that is not an outage, down to the failing row; doubles it back as batches pass', async function () {
    const { scope, lane, fence } = await anEmptyLane();
    // The first row's account stays locked by another Neo4j transaction: it cannot be applied
    // within the apply timeout until the lock is let go. The timeout must also be long enough for
    // every other apply to end well on a busy machine: with Neo4j's plan cache cleared and three
    // busy loops on two cores, applies of one and two rows took up to 1.2 s, and with 300 ms one
    // of three runs failed as the suite once did (an apply of the rows after the stuck one timed
    // out: 'again', 'applied 1' where 'applied 2' was due).
    await deps.graph.executeQuery('CREATE (:Account {tenantId: $t, mode: "test", externalId: "stuck", firstSeenAt: 0, history: false})', {
      t: scope.tenantId,
    });
    const holder = deps.graph.session();
    const held = await holder.beginTransaction();
    await held.run('MATCH (a:Account {tenantId: $t, mode: "test", externalId: "stuck"}) SET a.heldBy = "test"', { t: scope.tenantId });
    const accounts = ['stuck', 'g1', 'g2', 'g3'];
    await insertGraphOps(
      deps.db,
      scope,
      accounts.map((a) => ({ kind: 'link' as const, payload: link(scope, `evt_${a}`, a) })),
    );
    this.timeout(60_000);
    const { batches, passed } = aBatchApply(4, 4000);
    const steps: string[] = [];
    const limits: number[] = [batches.limit(lane)];
    const step = async () => {
      const s = await batches.next(client, lane, fence);
      steps.push(s.kind === 'applied' ? `applied ${s.read}` : s.kind);
      limits.push(batches.limit(lane));
    };
    try {
      // 4 rows fail, then 2, then the stuck row alone (not yet set aside: it is retried).
      for (let i = 0; i < 3; i++) await step();
    } finally {
      await held.rollback();
      await holder.close();
    }
    for (let i = 0; i < 4; i++) await step();
    expect(steps).to.deep.equal(['again', 'again', 'failed', 'applied 1', 'applied 2', 'applied 1', 'empty']);
    expect(limits).to.deep.equal([4, 2, 1, 1, 2, 4, 4, 4]);
    expect(passed).to.deep.equal([lane, lane, lane]);
    expect(await waiting(scope.tenantId)).to.deep.equal([]);
    for (const a of accounts) expect(await eventCount(scope.tenantId, `evt_${a}`), a).to.equal(1);
  });

  it('leaves the limit as it is when Neo4j is out of reach, and applies nothing', async () => {
    const { scope, lane, fence } = await anEmptyLane();
    await insertGraphOps(
      deps.db,
      scope,
      ['o1', 'o2'].map((a) => ({ kind: 'link' as const, payload: link(scope, `evt_${a}`, a) })),
    );
    const unreachable = testDeps({ NEO4J_URI: `bolt://127.0.0.1:${await freePort()}` });
    const { batches, passed } = aBatchApply(4, 1000, unreachable.graph);
    const step = await batches.next(client, lane, fence);
    expect(step.kind).to.equal('failed');
    expect(batches.limit(lane)).to.equal(4);
    expect(passed).to.deep.equal([]);
    expect(await waiting(scope.tenantId)).to.deep.equal(['evt_o1', 'evt_o2'].map((event_id) => ({ event_id, failed: false })));
  });
});
