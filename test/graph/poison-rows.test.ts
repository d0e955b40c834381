// Poison rows against the real Postgres, with the errors a real Neo4j gives: a row that fails
// alone is set aside (graph_outbox.failed_at, with its error) on its fifth failure in a row and
// not before; an outage never counts; a row that passed starts its count over.
// This process's own graph writer is stopped meanwhile, so the rows stay in the outbox.
import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import { applyGraphOps } from '../../src/graph/apply-graph-ops.js';
import { insertGraphOps, type OutboxRow } from '../../src/graph/graph-outbox-store.js';
import { graphLinkOf } from '../../src/graph/identity-graph.js';
import type { SessionRunner } from '../../src/graph/lane-ownership.js';
import { createPoisonRows, isOutage, POISON_FAILURES } from '../../src/graph/poison-rows.js';
import { aTenant } from '../support/fixtures.js';
import { freePort } from '../support/processes.js';
import { processGraphWriter } from '../support/root-hooks.js';
import { testDeps } from '../support/test-deps.js';

describe('poison rows', function () {
  this.timeout(30_000);
  const deps = testDeps();
  const onSession: SessionRunner = (client, fn) => fn(client);
  let client: pg.Client;
  // A row failing alone (its account held by another Neo4j transaction past the timeout), and
  // Neo4j out of reach: real errors, each taken once.
  let failure: unknown;
  let outage: unknown;

  before(async () => {
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const payload = graphLinkOf(scope, { eventId: 'evt_held', eventType: 'signup', at: Date.now(), account: 'held' }, 25)!;
    const row = { seq: '0', kind: 'link' as const, payload };
    await deps.graph.executeQuery('CREATE (:Account {tenantId: $t, mode: "test", externalId: "held", firstSeenAt: 0, history: false})', {
      t: scope.tenantId,
    });
    const holder = deps.graph.session();
    const held = await holder.beginTransaction();
    try {
      await held.run('MATCH (a:Account {tenantId: $t, mode: "test", externalId: "held"}) SET a.heldBy = "test"', { t: scope.tenantId });
      failure = await applyGraphOps(deps.graph, deps.cypher, [row], 300).then(
        () => undefined,
        (err: unknown) => err,
      );
    } finally {
      await held.rollback();
      await holder.close();
    }
    const unreachable = testDeps({ NEO4J_URI: `bolt://127.0.0.1:${await freePort()}` });
    outage = await applyGraphOps(unreachable.graph, unreachable.cypher, [row], 1000).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure, 'a failure').to.be.instanceOf(Error);
    expect(isOutage(failure), 'the held row is no outage').to.equal(false);
    expect(isOutage(outage), 'an unreachable Neo4j is an outage').to.equal(true);
    client = new pg.Client({ connectionString: deps.config.databaseDirectUrl });
    await client.connect();
    await processGraphWriter().stop();
  });
  after(async () => {
    await client.end();
    await processGraphWriter().start();
  });

  // A row of its own in the outbox, as the writer reads it.
  async function aRow(): Promise<OutboxRow & { lane: number }> {
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const link = graphLinkOf(scope, { eventId: 'evt_poison', eventType: 'signup', at: Date.now(), account: 'poison' }, 25)!;
    await insertGraphOps(deps.db, scope, [{ kind: 'link', payload: link }]);
    const {
      rows: [r],
    } = await deps.db.query<{ seq: string; lane: number }>('SELECT seq, lane FROM graph_outbox WHERE tenant_id = $1', [tenant.tenantId]);
    return { seq: r!.seq, lane: r!.lane, kind: 'link', payload: link };
  }
  const stateOf = async (row: OutboxRow) =>
    (
      await deps.db.query<{ failed: boolean; error: string | null }>(
        'SELECT failed_at IS NOT NULL AS failed, error FROM graph_outbox WHERE seq = $1',
        [row.seq],
      )
    ).rows[0];
  const silent = pino({ level: 'silent' });

  it(`sets a row failing alone aside on its ${POISON_FAILURES}th failure in a row, and not before`, async () => {
    const poison = createPoisonRows({ log: silent, onSession });
    const row = await aRow();
    for (let i = 1; i < POISON_FAILURES; i++) {
      expect(await poison.failedAlone(client, row.lane, row, failure), `failure ${i}`).to.equal(false);
      expect(await stateOf(row), `after failure ${i}`).to.deep.equal({ failed: false, error: null });
    }
    expect(await poison.failedAlone(client, row.lane, row, failure)).to.equal(true);
    expect(await stateOf(row)).to.deep.equal({ failed: true, error: String(failure) });
    expect(poison.setAside()).to.equal(1);
  });

  it('never counts an outage, however many come between the failures', async () => {
    const poison = createPoisonRows({ log: silent, onSession });
    const row = await aRow();
    for (let i = 1; i < POISON_FAILURES; i++) {
      expect(await poison.failedAlone(client, row.lane, row, failure)).to.equal(false);
      for (let j = 0; j < POISON_FAILURES; j++) {
        expect(await poison.failedAlone(client, row.lane, row, outage), 'an outage').to.equal(false);
      }
    }
    expect(await stateOf(row)).to.deep.equal({ failed: false, error: null });
    expect(poison.setAside()).to.equal(0);
    // The outages neither counted nor started the count over: the next failure is the fifth.
    expect(await poison.failedAlone(client, row.lane, row, failure)).to.equal(true);
    expect((await stateOf(row))?.failed).to.equal(true);
  });

  it('forgets the failures of a row that passed, and only of that row', async () => {
    const poison = createPoisonRows({ log: silent, onSession });
    const [row, other] = [await aRow(), await aRow()];
    for (let i = 1; i < POISON_FAILURES; i++) {
      await poison.failedAlone(client, row.lane, row, failure);
      await poison.failedAlone(client, other.lane, other, failure);
    }
    poison.passed([row]);
    for (let i = 1; i < POISON_FAILURES; i++) {
      expect(await poison.failedAlone(client, row.lane, row, failure), `failure ${i} after the pass`).to.equal(false);
    }
    expect(await stateOf(row)).to.deep.equal({ failed: false, error: null });
    expect(await poison.failedAlone(client, other.lane, other, failure), 'the other row, not forgotten').to.equal(true);
    expect(await poison.failedAlone(client, row.lane, row, failure)).to.equal(true);
    expect(poison.setAside()).to.equal(2);
  });
});
