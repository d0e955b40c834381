// Retention (issue 15): events judged more than EVENT_RETENTION_DAYS ago go from Postgres (with
// their review, deliveries and attempts) and from the graph (events, then accounts and identifiers
// nothing else uses; clusters recounted), in bounded batches; newer events and what they use stay.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { applyRetention } from '../../src/lifecycle/apply-retention.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { bearer } from '../support/fixtures.js';
import { IPS, verdictHarness } from '../support/verdict-harness.js';

const DAY = 86_400_000;

describe('retention', function () {
  this.timeout(120_000);

  it('removes events past EVENT_RETENTION_DAYS from Postgres and the graph in bounded batches, and keeps the rest', async () => {
    const h = await verdictHarness({ EVENT_RETENTION_DAYS: '30', RETENTION_BATCH_SIZE: '2' });
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const old = createApp({ ...h.deps, clock: { now: () => new Date(Date.now() - 40 * DAY) } });
    const judge = async (app: typeof old, body: object) => {
      const res = await request(app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test)).send(body);
      expect(res.status).to.equal(200);
      await h.graphSettled();
      return res.body.id as string;
    };
    const gone = [
      await judge(old, { event_type: 'signup', external_user_id: 'old_only', ip: '100.64.60.1', identity: { phone: '+15556000001' } }),
      await judge(old, { event_type: 'signup', external_user_id: 'returning', ip: '100.64.60.2', identity: { phone: '+15556000002' } }),
      await judge(old, { event_type: 'signup', external_user_id: 'old_tor', ip: IPS.tor, identity: { phone: '+15556000003' } }),
    ];
    const kept = await judge(h.app, { event_type: 'login', external_user_id: 'returning', ip: '100.64.60.3', identity: { wallet: 'w-kept' } });
    await resolveReview(h.deps, scope, { eventId: gone[2]!, resolution: 'approved', resolvedBy: 'test' });
    await request(h.app).post('/v1/feedback').set(bearer(h.tenant.keys.sk_test)).send({ subject: { kind: 'event_id', value: gone[0] }, outcome: 'chargeback' }).expect(200);
    await h.deps.db.query(`UPDATE feedback SET created_at = now() - interval '40 days' WHERE tenant_id = $1`, [scope.tenantId]);
    await h.graphSettled();

    const result = await applyRetention(h.deps);
    expect(result.complete).to.equal(true);
    // This tenant's three old events in batches of two; other tests' tenants may add theirs.
    expect(result.events).to.be.at.least(3);
    expect(result.batches).to.be.at.least(2);
    await h.graphSettled();

    const left = await h.deps.db.query('SELECT id FROM events WHERE tenant_id = $1 ORDER BY created_at', [scope.tenantId]);
    expect(left.rows.map((r) => r.id)).to.deep.equal([kept]);
    for (const table of ['reviews', 'webhook_deliveries', 'feedback', 'graph_outbox']) {
      const { rows } = await h.deps.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [scope.tenantId]);
      expect(rows[0].n, table).to.equal(0);
    }
    const graph = async (cypher: string) => (await h.deps.graph.executeQuery(cypher, { t: scope.tenantId })).records.map((r) => r.toObject());
    expect(await graph('MATCH (e:Event {tenantId: $t}) RETURN e.id AS id')).to.deep.equal([{ id: kept }]);
    expect(await graph('MATCH (a:Account {tenantId: $t}) RETURN a.externalId AS id')).to.deep.equal([{ id: 'returning' }]);
    // The returning account keeps what it linked (its old phone too: the account still uses it).
    expect(await graph('MATCH (i:Identifier {tenantId: $t}) RETURN i.value AS v ORDER BY v')).to.deep.equal([{ v: '+15556000002' }, { v: 'w-kept' }]);
    expect(await graph('MATCH (c:Cluster {tenantId: $t}) RETURN c.accounts AS accounts, c.size AS size')).to.deep.equal([{ accounts: 1, size: 3 }]);
    expect(await graph('MATCH (f:Feedback {tenantId: $t}) RETURN count(f) AS n')).to.deep.equal([{ n: 0 }]);
  });
});
