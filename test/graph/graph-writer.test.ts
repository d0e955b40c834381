// The graph writer against the real Neo4j and Postgres: a batch applied twice changes nothing
// (a writer killed between the Neo4j commit and deleting its rows), a row Neo4j refuses is set
// aside without stopping its lane, and a writer that cannot reach Neo4j gives its lanes up.
// Fenced and bounded: acquiring that overlaps itself never takes a lane's lock twice;
// a batch of an older epoch is refused inside Neo4j; a writer whose Postgres session stalls loses
// its lanes within seconds, and another takes them; a row that keeps failing is split off and
// set aside while the rows around it are applied; a lane whose fence is ahead of Postgres's
// epochs (a restored backup) is caught up by its holder alone.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import neo4j from 'neo4j-driver';
import pg from 'pg';
import { applyGraphOps, StaleLaneError } from '../../src/graph/apply-graph-ops.js';
import { insertGraphOps, type OutboxRow } from '../../src/graph/graph-outbox-store.js';
import { createGraphWriter, passLaneFence } from '../../src/graph/graph-writer.js';
import { inTransaction } from '../../src/db/queryable.js';
import { graphLinkOf } from '../../src/graph/identity-graph.js';
import { aTenant } from '../support/fixtures.js';
import { freePort, until } from '../support/processes.js';
import { startTcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { processGraphWriter } from '../support/root-hooks.js';
import { testDeps } from '../support/test-deps.js';
import { graphSettled } from '../support/verdict-harness.js';

describe('graph writer', function () {
  this.timeout(30_000);
  const deps = testDeps();

  it('changes nothing when the same batch is applied twice', async () => {
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const at = Date.now();
    const link = (eventId: string, eventType: string, account: string | undefined, card?: string) => ({
      seq: '0',
      kind: 'link' as const,
      payload: graphLinkOf(scope, { eventId, eventType, at, account, identity: { phone: '+1555303' }, card }, 25)!,
    });
    const rows: OutboxRow[] = [
      link('evt_a', 'trial_start', 'acct_a'),
      link('evt_b', 'checkout_attempt', undefined, 'card_x'),
      {
        seq: '0',
        kind: 'mark',
        payload: {
          tenantId: scope.tenantId,
          mode: 'test',
          key: 'feedback:x',
          at,
          anchorKind: 'account',
          anchorValue: 'acct_a',
          outcome: 'chargeback',
          codes: [],
        },
      },
    ];
    const facts = async () => {
      const { records } = await deps.graph.executeQuery(
        `MATCH (c:Cluster {tenantId: $t, mode: 'test'}) OPTIONAL MATCH (i:Identifier {tenantId: $t, mode: 'test', kind: 'phone'})
         RETURN c.accounts AS accounts, c.chargebacks AS chargebacks, size(c.cardAt) AS cards, c.lastTrialStartAt AS trial,
                i.accounts AS phoneAccounts, i.anonymous AS phoneAnonymous`,
        { t: scope.tenantId },
      );
      return records.map((r) => r.toObject());
    };
    await applyGraphOps(deps.graph, deps.cypher, rows, 10_000);
    const once = await facts();
    expect(once).to.deep.equal([{ accounts: 1, chargebacks: 1, cards: 1, trial: at, phoneAccounts: 1, phoneAnonymous: 1 }]);
    await applyGraphOps(deps.graph, deps.cypher, rows, 10_000);
    expect(await facts()).to.deep.equal(once);
  });

  it("applies a scope delete in its lane's order, through the outbox: what came before goes, what came after stays", async () => {
    const tenant = await aTenant(deps);
    const other = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const otherScope = { tenantId: other.tenantId, mode: 'test' as const };
    const link = (s: typeof scope, eventId: string, account: string) =>
      graphLinkOf(s, { eventId, eventType: 'signup', at: Date.now(), account, identity: { phone: `+1555${eventId}` } }, 25)!;
    await deps.graphOutbox.link(deps.db, otherScope, link(otherScope, 'evt_other', 'other'));
    // One transaction: the delete is queued between the links, as a rebuild queues it.
    await inTransaction(deps.db, async (tx) => {
      await deps.graphOutbox.link(tx, scope, link(scope, 'evt_before', 'before'));
      await deps.graphOutbox.deleteScope(tx, scope, new Date());
      await deps.graphOutbox.link(tx, scope, link(scope, 'evt_after', 'after'));
    });
    await graphSettled(deps, tenant.tenantId);
    await graphSettled(deps, other.tenantId);
    const events = async (t: string) =>
      (await deps.graph.executeQuery('MATCH (e:Event {tenantId: $t, mode: "test"}) RETURN e.id AS id ORDER BY id', { t })).records.map(
        (r) => r.get('id'),
      );
    expect(await events(tenant.tenantId)).to.deep.equal(['evt_after']);
    expect(await events(other.tenantId), 'another scope is untouched').to.deep.equal(['evt_other']);
    const { records } = await deps.graph.executeQuery('MATCH (a:Account {tenantId: $t, mode: "test"}) RETURN a.externalId AS id', {
      t: tenant.tenantId,
    });
    expect(records.map((r) => r.get('id'))).to.deep.equal(['after']);
  });

  it('sets aside a row Neo4j refuses and applies the rows after it', async () => {
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const good = graphLinkOf(scope, { eventId: 'evt_good', eventType: 'signup', at: Date.now(), account: 'after_bad' }, 25)!;
    // An identifier without a value cannot be merged: Neo4j refuses the statement.
    await insertGraphOps(deps.db, scope, [
      { kind: 'link', payload: { ...good, eventId: 'evt_bad', ids: [{ kind: 'phone', value: null as unknown as string }] } },
    ]);
    await insertGraphOps(deps.db, scope, [{ kind: 'link', payload: good }]);
    await graphSettled(deps, tenant.tenantId);
    const { rows } = await deps.db.query('SELECT event_id, error FROM graph_outbox WHERE tenant_id = $1', [tenant.tenantId]);
    expect(rows.map((r) => r.event_id)).to.deep.equal(['evt_bad']);
    expect(rows[0].error).to.match(/null/i);
    const { records } = await deps.graph.executeQuery('MATCH (e:Event {tenantId: $t, mode: "test", id: "evt_good"}) RETURN count(e) AS n', {
      t: tenant.tenantId,
    });
    expect(records[0]?.get('n')).to.equal(1);
  });

  it('gives its lanes up while it cannot reach Neo4j, so another writer applies them', async () => {
    // The broken writer must hold the lanes first: this process's own writer steps aside.
    await processGraphWriter().stop();
    const broken = testDeps({ NEO4J_URI: `bolt://127.0.0.1:${await freePort()}` });
    const brokenWriter = createGraphWriter(broken, { acquireEveryMs: 100, idlePollMs: 50 });
    const healthy = createGraphWriter(deps, { acquireEveryMs: 100, idlePollMs: 50 });
    try {
      await brokenWriter.start();
      expect(brokenWriter.ownedLanes().size).to.equal(16);
      await healthy.start();
      expect(healthy.ownedLanes().size).to.equal(0);
      const tenant = await aTenant(deps);
      const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
      await insertGraphOps(deps.db, scope, [
        {
          kind: 'link',
          payload: graphLinkOf(scope, { eventId: 'evt_while_broken', eventType: 'signup', at: Date.now(), account: 'x' }, 25)!,
        },
      ]);
      await graphSettled(deps, tenant.tenantId);
      // The row is gone once its delete commits; the writer counts it a moment later.
      await until('the healthy writer to count what it applied', async () => (healthy.stats().applied >= 1 ? true : undefined), 5000);
      expect(brokenWriter.stats().applied).to.equal(0);
      expect(healthy.ownedLanes().size).to.be.at.least(1);
      const { records } = await deps.graph.executeQuery(
        'MATCH (e:Event {tenantId: $t, mode: "test", id: "evt_while_broken"}) RETURN count(e) AS n',
        { t: tenant.tenantId },
      );
      expect(records[0]?.get('n')).to.equal(1);
    } finally {
      await brokenWriter.stop();
      await healthy.stop();
      await processGraphWriter().start();
    }
  });

  // Runs `fn` with this process's own writer stopped, so the writers a test makes hold the lanes.
  async function withoutProcessWriter(fn: () => Promise<void>): Promise<void> {
    await processGraphWriter().stop();
    try {
      await fn();
    } finally {
      await processGraphWriter().start();
    }
  }

  const linkRow = (scope: { tenantId: string; mode: 'test' }, eventId: string, account: string) => ({
    kind: 'link' as const,
    payload: graphLinkOf(scope, { eventId, eventType: 'signup', at: Date.now(), account }, 25)!,
  });
  const eventCount = async (tenantId: string, id: string) =>
    Number(
      (
        await deps.graph.executeQuery('MATCH (e:Event {tenantId: $t, mode: "test", id: $id}) RETURN count(e) AS n', { t: tenantId, id })
      ).records[0]?.get('n'),
    );

  it('takes a lane once however often acquiring overlaps, so a released lane goes to another writer', async () => {
    await withoutProcessWriter(async () => {
      // Acquiring every millisecond overlaps its own queries; the broken writer's batches fail,
      // so it releases its lanes, and each must then be free for the healthy writer.
      const broken = testDeps({ NEO4J_URI: `bolt://127.0.0.1:${await freePort()}` });
      const brokenWriter = createGraphWriter(broken, { acquireEveryMs: 1, idlePollMs: 20 });
      const healthy = createGraphWriter(deps, { acquireEveryMs: 100, idlePollMs: 50 });
      try {
        await brokenWriter.start();
        await until('the broken writer to hold every lane', async () => (brokenWriter.ownedLanes().size === 16 ? true : undefined), 5000);
        await healthy.start();
        const tenant = await aTenant(deps);
        const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
        await insertGraphOps(deps.db, scope, [linkRow(scope, 'evt_overlap', 'overlap')]);
        await graphSettled(deps, tenant.tenantId, 20_000);
        expect(await eventCount(tenant.tenantId, 'evt_overlap')).to.equal(1);
        // No lane is locked twice by the broken writer's session.
        // This database's lanes only: a service beside the tests (`npm start`) holds its own.
        const { rows } = await deps.db.query(
          `SELECT objid::int AS lane, count(*)::int AS holders FROM pg_locks
            WHERE locktype = 'advisory' AND classid = $1 AND granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            GROUP BY objid HAVING count(*) > 1`,
          [0x67726170],
        );
        expect(rows).to.deep.equal([]);
      } finally {
        await brokenWriter.stop();
        await healthy.stop();
      }
    });
  });

  it('refuses, inside Neo4j, a batch of an older epoch than the lane has seen', async () => {
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const lane = 1000 + Math.floor(Math.random() * 1_000_000);
    const key = `fence_test_${randomUUID()}`;
    const row = (id: string) => ({ seq: '0', ...linkRow(scope, id, `fenced_${id}`) });
    await applyGraphOps(deps.graph, deps.cypher, [row('evt_epoch_10')], 10_000, { lane, epoch: 10, key });
    let refused: unknown;
    await applyGraphOps(deps.graph, deps.cypher, [row('evt_epoch_9')], 10_000, { lane, epoch: 9, key }).catch((err) => {
      refused = err;
    });
    expect(refused).to.be.instanceOf(StaleLaneError);
    await applyGraphOps(deps.graph, deps.cypher, [row('evt_epoch_11')], 10_000, { lane, epoch: 11, key });
    expect([
      await eventCount(tenant.tenantId, 'evt_epoch_10'),
      await eventCount(tenant.tenantId, 'evt_epoch_9'),
      await eventCount(tenant.tenantId, 'evt_epoch_11'),
    ]).to.deep.equal([1, 0, 1]);
    await deps.graph.executeQuery('MATCH (f:LaneFence {key: $key}) DELETE f', { key });
  });

  it("keeps each database's fence of a lane apart: another database's epochs on the same lane neither pass nor stop its batches", async () => {
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const lane = 3;
    const [ours, theirs] = [`fence_test_${randomUUID()}`, `fence_test_${randomUUID()}`];
    const row = (id: string) => ({ seq: '0', ...linkRow(scope, id, `apart_${id}`) });
    // The other database's writer of lane 3 is far ahead of ours: ours still passes its own fence.
    await applyGraphOps(deps.graph, deps.cypher, [row('evt_theirs')], 10_000, { lane, epoch: 1_000_000, key: theirs });
    await applyGraphOps(deps.graph, deps.cypher, [row('evt_ours_5')], 10_000, { lane, epoch: 5, key: ours });
    // And its own older epoch is still refused by its own fence.
    const refused = await applyGraphOps(deps.graph, deps.cypher, [row('evt_ours_4')], 10_000, { lane, epoch: 4, key: ours }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(StaleLaneError);
    expect([
      await eventCount(tenant.tenantId, 'evt_theirs'),
      await eventCount(tenant.tenantId, 'evt_ours_5'),
      await eventCount(tenant.tenantId, 'evt_ours_4'),
    ]).to.deep.equal([1, 1, 0]);
    const { records } = await deps.graph.executeQuery(
      'MATCH (f:LaneFence) WHERE f.key IN [$ours, $theirs] RETURN f.key AS key, f.epoch AS epoch ORDER BY f.epoch',
      { ours, theirs },
    );
    expect(records.map((r) => [r.get('key'), Number(r.get('epoch'))])).to.deep.equal([
      [ours, 5],
      [theirs, 1_000_000],
    ]);
    await deps.graph.executeQuery('MATCH (f:LaneFence) WHERE f.key IN [$ours, $theirs] DELETE f', { ours, theirs });
  });

  it('gives each lane of this database a fence key of its own', async () => {
    const { rows } = await deps.db.query<{ n: number; keys: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT fence_key)::int AS keys FROM graph_lane_epochs',
    );
    expect(rows[0]).to.deep.equal({ n: 16, keys: 16 });
  });

  it('moves past a fence its Postgres fell behind (a restored backup) while it holds the lane, and keeps applying', async () => {
    await withoutProcessWriter(async () => {
      const tenant = await aTenant(deps);
      const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
      await insertGraphOps(deps.db, scope, [linkRow(scope, 'evt_after_restore', 'restored')]);
      const {
        rows: [row],
      } = await deps.db.query<{ lane: number; epoch: string; fence_key: string }>(
        'SELECT o.lane, e.epoch, e.fence_key FROM graph_outbox o JOIN graph_lane_epochs e USING (lane) WHERE o.tenant_id = $1',
        [tenant.tenantId],
      );
      // The graph saw epochs far beyond what this Postgres now holds.
      const fence = Number(row!.epoch) + 1000;
      await deps.graph.executeQuery(
        "MERGE (f:LaneFence {key: $key}) SET f.epoch = $fence, f.lane = $lane, f.tenantId = '', f.mode = 'internal'",
        { key: row!.fence_key, lane: neo4j.int(row!.lane), fence: neo4j.int(fence) },
      );
      const writer = createGraphWriter(deps, { acquireEveryMs: 100, idlePollMs: 50 });
      const started = Date.now();
      try {
        await writer.start();
        await graphSettled(deps, tenant.tenantId, 10_000);
      } finally {
        await writer.stop();
      }
      // At once, not one epoch per acquiring round (which would take 1,000 rounds).
      expect(Date.now() - started).to.be.below(5000);
      expect(await eventCount(tenant.tenantId, 'evt_after_restore')).to.equal(1);
      const after = await deps.db.query<{ epoch: string }>('SELECT epoch FROM graph_lane_epochs WHERE lane = $1', [row!.lane]);
      expect(Number(after.rows[0]!.epoch)).to.be.above(fence);
    });
  });

  it('does not move past a fence for a lane whose lock it does not hold', async () => {
    await withoutProcessWriter(async () => {
      const holder = createGraphWriter(deps, { acquireEveryMs: 100, idlePollMs: 50 });
      await holder.start();
      const other = new pg.Client({ connectionString: deps.config.databaseUrl });
      await other.connect();
      try {
        const before = await deps.db.query<{ epoch: string }>('SELECT epoch FROM graph_lane_epochs WHERE lane = 3');
        // From a session that does not hold lane 3 (the holder's does).
        expect(await passLaneFence(other, 3, 1_000_000)).to.equal(undefined);
        const after = await deps.db.query<{ epoch: string }>('SELECT epoch FROM graph_lane_epochs WHERE lane = 3');
        expect(after.rows[0]!.epoch).to.equal(before.rows[0]!.epoch);
      } finally {
        await other.end();
        await holder.stop();
      }
    });
  });

  it("raises a lane's epoch each time it is taken", async () => {
    await withoutProcessWriter(async () => {
      const before = await deps.db.query<{ lane: number; epoch: string }>('SELECT lane, epoch FROM graph_lane_epochs ORDER BY lane');
      const writer = createGraphWriter(deps, { acquireEveryMs: 100, idlePollMs: 50 });
      await writer.start();
      await writer.stop();
      const after = await deps.db.query<{ lane: number; epoch: string }>('SELECT lane, epoch FROM graph_lane_epochs ORDER BY lane');
      expect(after.rows.map((r, i) => Number(r.epoch) - Number(before.rows[i]!.epoch))).to.deep.equal(Array.from({ length: 16 }, () => 1));
    });
  });

  it('loses its lanes within seconds when its Postgres session stalls, and another writer takes them', async () => {
    await withoutProcessWriter(async () => {
      const direct = new URL(deps.config.databaseDirectUrl);
      const proxy = await startTcpFaultProxy(Number(direct.port || 5432), direct.hostname === 'localhost' ? '127.0.0.1' : direct.hostname);
      const through = new URL(direct.href);
      through.hostname = '127.0.0.1';
      through.port = String(proxy.port);
      const stalled = createGraphWriter(
        { ...deps, config: { databaseUrl: through.href } },
        {
          acquireEveryMs: 200,
          idlePollMs: 50,
          sessionQueryTimeoutMs: 1000,
          sessionIdleTimeoutMs: 2000,
        },
      );
      const healthy = createGraphWriter(deps, { acquireEveryMs: 200, idlePollMs: 50 });
      try {
        await stalled.start();
        expect(stalled.ownedLanes().size).to.equal(16);
        await healthy.start();
        expect(healthy.ownedLanes().size).to.equal(0);
        // Nothing more crosses; no connection is closed (a half-open connection).
        proxy.stall();
        const tenant = await aTenant(deps);
        const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
        await insertGraphOps(deps.db, scope, [linkRow(scope, 'evt_after_stall', 'stall')]);
        await graphSettled(deps, tenant.tenantId, 20_000);
        expect(await eventCount(tenant.tenantId, 'evt_after_stall')).to.equal(1);
        expect(stalled.ownedLanes().size).to.equal(0);
        expect(healthy.ownedLanes().size).to.equal(16);
      } finally {
        proxy.restore();
        await stalled.stop();
        await healthy.stop();
        await proxy.close();
      }
    });
  });

  it('splits off a row that keeps failing and sets it aside, applying the rows around it', async () => {
    await withoutProcessWriter(async () => {
      const tenant = await aTenant(deps);
      const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
      await insertGraphOps(deps.db, scope, [linkRow(scope, 'evt_before_poison', 'before')]);
      // The poison row's account stays locked by another Neo4j transaction throughout, so that row
      // cannot be applied within the writer's 300 ms, however often it is tried.
      await deps.graph.executeQuery(
        'CREATE (:Account {tenantId: $t, mode: "test", externalId: "poison", firstSeenAt: 0, history: false})',
        { t: tenant.tenantId },
      );
      const holder = deps.graph.session();
      const held = await holder.beginTransaction();
      await held.run('MATCH (a:Account {tenantId: $t, mode: "test", externalId: "poison"}) SET a.heldBy = "test"', { t: tenant.tenantId });
      await insertGraphOps(deps.db, scope, [linkRow(scope, 'evt_poison', 'poison')]);
      await insertGraphOps(deps.db, scope, [linkRow(scope, 'evt_after_poison', 'after')]);
      const writer = createGraphWriter(deps, { acquireEveryMs: 100, idlePollMs: 50, applyTimeoutMs: 300 });
      try {
        await writer.start();
        await graphSettled(deps, tenant.tenantId, 45_000);
      } finally {
        await writer.stop();
        await held.rollback();
        await holder.close();
      }
      expect(await eventCount(tenant.tenantId, 'evt_before_poison')).to.equal(1);
      expect(await eventCount(tenant.tenantId, 'evt_after_poison')).to.equal(1);
      const { rows } = await deps.db.query('SELECT event_id, error FROM graph_outbox WHERE tenant_id = $1', [tenant.tenantId]);
      expect(rows.map((r) => r.event_id)).to.deep.equal(['evt_poison']);
      expect(rows[0].error).to.be.a('string').and.not.equal('');
    });
  });
});
