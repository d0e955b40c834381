// Retention: events judged more than EVENT_RETENTION_DAYS ago go from Postgres (with
// their review, deliveries and attempts) and from the graph (events, then accounts and identifiers
// nothing else uses; clusters recounted), in bounded batches; newer events and what they use stay.
// Every row that references an event goes with it (the catalog says so, for tables added later
// too), so a shadow policy's decisions never stop retention; and a scope that fails is skipped,
// logged and counted while every other scope is cleaned.
import { expect } from 'chai';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { applyRetention } from '../../src/lifecycle/apply-retention.js';
import { verifyGraph } from '../../src/lifecycle/verify-graph.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { setShadow } from '../../src/policies/shadows/shadow-policy.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { aDocument } from '../policies/policy-builders.js';
import { bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup, IPS, verdictHarness } from '../support/verdict-harness.js';

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
    const kept = await judge(h.app, {
      event_type: 'login',
      external_user_id: 'returning',
      ip: '100.64.60.3',
      identity: { wallet: 'w-kept' },
    });
    await resolveReview(h.deps, scope, { eventId: gone[2]!, resolution: 'approved', resolvedBy: 'test' });
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'event_id', value: gone[0] }, outcome: 'chargeback' })
      .expect(200);
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
    const graph = async (cypher: string) =>
      (await h.deps.graph.executeQuery(cypher, { t: scope.tenantId })).records.map((r) => r.toObject());
    expect(await graph('MATCH (e:Event {tenantId: $t}) RETURN e.id AS id')).to.deep.equal([{ id: kept }]);
    expect(await graph('MATCH (a:Account {tenantId: $t}) RETURN a.externalId AS id')).to.deep.equal([{ id: 'returning' }]);
    // The returning account keeps what its kept event evidences, and only that: its old phone went
    // with the only event that used it, as a rebuild from Postgres would have it.
    expect(await graph('MATCH (i:Identifier {tenantId: $t}) RETURN i.value AS v ORDER BY v')).to.deep.equal([{ v: 'w-kept' }]);
    expect(await graph('MATCH (c:Cluster {tenantId: $t}) RETURN c.accounts AS accounts, c.size AS size')).to.deep.equal([
      { accounts: 1, size: 2 },
    ]);
    expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
    expect(await graph('MATCH (f:Feedback {tenantId: $t}) RETURN count(f) AS n')).to.deep.equal([{ n: 0 }]);
  });

  it('cascades every foreign key that leads to an event, and names the tables that clean event ids themselves', async () => {
    const deps = testDeps();
    // Foreign keys into events, and into tables that themselves hang off events, transitively.
    const { rows } = await deps.db.query<{ child: string; parent: string; name: string; on_delete: string }>(
      `WITH RECURSIVE hanging (tbl) AS (
         SELECT 'events'::regclass
         UNION
         SELECT c.conrelid::regclass FROM pg_constraint c JOIN hanging h ON c.confrelid = h.tbl WHERE c.contype = 'f')
       SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent, c.conname AS name, c.confdeltype AS on_delete
         FROM pg_constraint c JOIN hanging h ON c.confrelid = h.tbl WHERE c.contype = 'f' ORDER BY 1, 2`,
    );
    expect(rows.map((r) => r.child)).to.include.members(['reviews', 'shadow_decisions', 'webhook_deliveries', 'webhook_attempts']);
    expect(
      rows.filter((r) => r.on_delete !== 'c').map((r) => `${r.child} → ${r.parent} (${r.name})`),
      'without ON DELETE CASCADE',
    ).to.deep.equal([]);
    // Tables that name an event without a foreign key clean it themselves; each says how.
    const cleanedBy: Record<string, string> = {
      graph_outbox: 'deleted with the event by retention and erasure (lifecycle/retention-store.ts)',
      graph_applied_links:
        "an applied link, kept a minute for the verdict's check; deleted with the event by retention and erasure, with its pending link",
      idempotency_keys: 'expire after 24 h; housekeeping deletes them',
      policy_backtest_flips: 'a stored backtest is a snapshot: ids and verdicts, no personal data; it goes with its backtest',
    };
    const { rows: named } = await deps.db.query<{ tbl: string }>(
      `SELECT DISTINCT c.table_name AS tbl FROM information_schema.columns c
        WHERE c.table_schema = 'public' AND c.column_name = 'event_id'
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.contype = 'f' AND k.conrelid = c.table_name::regclass
                            AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey) AND a.attname = 'event_id'))
        ORDER BY 1`,
    );
    expect(
      named.map((r) => r.tbl).filter((t) => !(t in cleanedBy)),
      'event_id columns with neither a cascade nor a cleaner',
    ).to.deep.equal([]);
  });

  it("removes a shadow policy's decisions with their events, which would otherwise stop retention for every scope", async () => {
    const h = await verdictHarness({ EVENT_RETENTION_DAYS: '30' });
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const shadow = await publishPolicy(h.deps, scope, { document: aDocument({ proxy_ip: { effects: { signup: 'block' } } }) });
    await publishPolicy(h.deps, scope, { document: aDocument() });
    await setShadow(h.deps, scope, shadow);
    await until('this instance to know the shadow', async () => {
      await h.deps.policies.refresh(scope);
      return h.deps.policies.shadowFor(scope)?.version === shadow ? true : undefined;
    });
    const old = createApp({ ...h.deps, clock: { now: () => new Date(Date.now() - 40 * DAY) } });
    const res = await request(old)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send(aSignup({ ip: IPS.proxy }))
      .expect(200);
    await until('the shadow decision', async () => {
      const { rows } = await h.deps.db.query('SELECT 1 FROM shadow_decisions WHERE tenant_id = $1 AND event_id = $2', [
        scope.tenantId,
        res.body.id,
      ]);
      return rows[0];
    });
    const result = await applyRetention(h.deps);
    expect(result.failedScopes).to.equal(0);
    const left = await h.deps.db.query(
      `SELECT (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events, (SELECT count(*)::int FROM shadow_decisions WHERE tenant_id = $1) AS shadows`,
      [scope.tenantId],
    );
    expect(left.rows[0]).to.deep.equal({ events: 0, shadows: 0 });
  });

  it('skips a scope whose batch fails, with an error log and a metric, and cleans the scopes after it', async () => {
    const lines: { level: number; msg: string; tenant_id?: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const metrics = createMetrics();
    const h = await verdictHarness({ EVENT_RETENTION_DAYS: '30' });
    const failing = h.tenant;
    const healthy = await verdictHarness({ EVENT_RETENTION_DAYS: '30' });
    const past = { now: () => new Date(Date.now() - 40 * DAY) };
    for (const [harness, ip] of [
      [h, '100.64.61.1'],
      [healthy, '100.64.61.2'],
    ] as const) {
      await request(createApp({ ...harness.deps, clock: past }))
        .post('/v1/verdict')
        .set(bearer(harness.tenant.keys.sk_test))
        .send(aSignup({ ip }))
        .expect(200);
    }
    // A real fault in Postgres, for the failing tenant's rows only: deleting its events raises.
    const fn = `fail_retention_${failing.tenantId.replace(/\W/g, '_')}`;
    await h.deps.db.query(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
    );
    await h.deps.db.query(
      `CREATE TRIGGER ${fn} BEFORE DELETE ON events FOR EACH ROW WHEN (OLD.tenant_id = '${failing.tenantId}') EXECUTE FUNCTION ${fn}()`,
    );
    try {
      const result = await applyRetention({ ...h.deps, logger, metrics });
      expect(result.failedScopes).to.equal(1);
      expect(result.complete).to.equal(false);
      const count = async (tenantId: string) =>
        (await h.deps.db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [tenantId])).rows[0].n;
      expect(await count(failing.tenantId)).to.equal(1);
      expect(await count(healthy.tenant.tenantId)).to.equal(0);
      const errors = lines.filter((l) => l.level === 50);
      expect(errors.map((l) => l.tenant_id)).to.deep.equal([failing.tenantId]);
      expect(errors[0]!.msg).to.match(/retention failed for a scope/);
      const metric = (await metrics.registry.getSingleMetricAsString('doorman_retention_scope_failures_total'))
        .split('\n')
        .find((l) => l.startsWith('doorman_retention_scope_failures_total '));
      expect(metric).to.equal('doorman_retention_scope_failures_total 1');
    } finally {
      await h.deps.db.query(`DROP TRIGGER ${fn} ON events`);
      await h.deps.db.query(`DROP FUNCTION ${fn}()`);
    }
    // The next run, with the fault gone, cleans it.
    const next = await applyRetention(h.deps);
    expect(next.failedScopes).to.equal(0);
    expect((await h.deps.db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [failing.tenantId])).rows[0].n).to.equal(0);
  });
});
