// The graph writer against the real Neo4j and Postgres: a batch applied twice changes nothing
// (a writer killed between the Neo4j commit and deleting its rows), a row Neo4j refuses is set
// aside without stopping its lane, and a writer that cannot reach Neo4j gives its lanes up.
import { expect } from 'chai';
import { applyGraphOps } from '../../src/graph/apply-graph-ops.js';
import { enqueueGraphOp, type OutboxRow } from '../../src/graph/graph-outbox-store.js';
import { createGraphWriter } from '../../src/graph/graph-writer.js';
import { graphLinkOf } from '../../src/graph/identity-graph.js';
import { aTenant } from '../support/fixtures.js';
import { freePort, until } from '../support/processes.js';
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
      seq: '0', kind: 'link' as const,
      payload: graphLinkOf(scope, { eventId, eventType, at, account, identity: { phone: '+1555303' }, card }, 25)!,
    });
    const rows: OutboxRow[] = [
      link('evt_a', 'trial_start', 'acct_a'),
      link('evt_b', 'checkout_attempt', undefined, 'card_x'),
      { seq: '0', kind: 'mark', payload: { tenantId: scope.tenantId, mode: 'test', key: 'feedback:x', at, anchorKind: 'account', anchorValue: 'acct_a', outcome: 'chargeback', codes: [] } },
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

  it('sets aside a row Neo4j refuses and applies the rows after it', async () => {
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const good = graphLinkOf(scope, { eventId: 'evt_good', eventType: 'signup', at: Date.now(), account: 'after_bad' }, 25)!;
    // An identifier without a value cannot be merged: Neo4j refuses the statement.
    await enqueueGraphOp(deps.db, scope, { kind: 'link', payload: { ...good, eventId: 'evt_bad', ids: [{ kind: 'phone', value: null as unknown as string }] } });
    await enqueueGraphOp(deps.db, scope, { kind: 'link', payload: good });
    await graphSettled(deps, tenant.tenantId);
    const { rows } = await deps.db.query('SELECT event_id, error FROM graph_outbox WHERE tenant_id = $1', [tenant.tenantId]);
    expect(rows.map((r) => r.event_id)).to.deep.equal(['evt_bad']);
    expect(rows[0].error).to.match(/null/i);
    const { records } = await deps.graph.executeQuery('MATCH (e:Event {tenantId: $t, mode: "test", id: "evt_good"}) RETURN count(e) AS n', { t: tenant.tenantId });
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
      await enqueueGraphOp(deps.db, scope, { kind: 'link', payload: graphLinkOf(scope, { eventId: 'evt_while_broken', eventType: 'signup', at: Date.now(), account: 'x' }, 25)! });
      await graphSettled(deps, tenant.tenantId);
      // The row is gone once its delete commits; the writer counts it a moment later.
      await until('the healthy writer to count what it applied', async () => (healthy.stats().applied >= 1 ? true : undefined), 5000);
      expect(brokenWriter.stats().applied).to.equal(0);
      expect(healthy.ownedLanes().size).to.be.at.least(1);
      const { records } = await deps.graph.executeQuery('MATCH (e:Event {tenantId: $t, mode: "test", id: "evt_while_broken"}) RETURN count(e) AS n', { t: tenant.tenantId });
      expect(records[0]?.get('n')).to.equal(1);
    } finally {
      await brokenWriter.stop();
      await healthy.stop();
      await processGraphWriter().start();
    }
  });
});
