// Postgres behind PgBouncer in transaction mode (docs/pgbouncer.md): with DATABASE_URL
// through a real PgBouncer and DATABASE_DIRECT_URL straight to Postgres, the verdict path, its
// Idempotency-Key, PATCH, feedback and a review resolution (a job queued in the caller's
// transaction) all work, and PgBouncer carried their transactions. A running instance
// hears every announcement (LISTEN on the direct URL: through the bouncer a LISTEN succeeds and
// then hears nothing), so a revoked key, a new block-list entry and a publication reach it.
import { expect } from 'chai';
import request from 'supertest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { changeList } from '../../src/lists/manage-lists.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { createKey, revokeApiKey } from '../../src/tenants/manage-tenants.js';
import { aDocument } from '../policies/policy-builders.js';
import { aClientIp, aTenant, bearer } from '../support/fixtures.js';
import { pgbouncerAvailable, startPgBouncer, transactionsThrough, type PgBouncer } from '../support/pgbouncer.js';
import { startServer, until } from '../support/processes.js';
import { skipBecause } from '../support/skip.js';
import { testConfig, testDeps } from '../support/test-deps.js';
import { aSignup, DOMAINS, IPS, verdictHarness } from '../support/verdict-harness.js';

describe('Postgres behind PgBouncer (transaction mode)', function () {
  this.timeout(90_000);
  let bouncer: PgBouncer | undefined;
  const direct = testConfig().databaseUrl;
  before(async function () {
    if (!(await pgbouncerAvailable())) {
      if (process.env.CI) throw new Error('pgbouncer is not installed (scripts/stack.sh installs it)');
      skipBecause(this, 'pgbouncer is not installed (scripts/test.sh installs it with apt)');
    }
    bouncer = await startPgBouncer(direct);
  });
  after(async () => bouncer?.stop());

  it('serves verdicts, replays, PATCH, feedback and resolutions through it, with sessions on the direct URL', async () => {
    const database = new URL(direct).pathname.slice(1);
    const before = await transactionsThrough(bouncer!, direct, database);
    const h = await verdictHarness({ DATABASE_URL: bouncer!.url(direct), DATABASE_DIRECT_URL: direct });
    expect(h.deps.config.databaseDirectUrl).to.equal(direct);
    // Unnamed statements through the bouncer: 40 verdicts at once spread over its 8 server
    // connections, where a statement prepared on one is unknown on the next.
    expect(h.deps.config.pgNamedStatements).to.equal(false);
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(h.app)
          .post('/v1/verdict')
          .set(bearer(h.tenant.keys.sk_test))
          .send(aSignup({ identity: { phone: `+1555961${String(i).padStart(4, '0')}` } })),
      ),
    );
    expect(burst.map((r) => r.status)).to.deep.equal(burst.map(() => 200));
    const send = (body: object, key?: string) => {
      const r = request(h.app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test));
      return (key ? r.set('Idempotency-Key', key) : r).send(body);
    };
    const body = aSignup({ identity: { phone: '+15559600001' } });
    const first = await send(body, 'bounced-1');
    expect(first.status).to.equal(200);
    expect((await send(body, 'bounced-1')).text).to.equal(first.text);
    await request(h.app)
      .patch(`/v1/events/${first.body.id}`)
      .set(bearer(h.tenant.keys.sk_test))
      .send({ external_user_id: 'bounced' })
      .expect(200);
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'event_id', value: first.body.id }, outcome: 'chargeback' })
      .expect(200);
    const review = await send(aSignup({ ip: IPS.tor }));
    const resolved = await resolveReview(
      h.deps,
      { tenantId: h.tenant.tenantId, mode: 'test' },
      { eventId: review.body.id, resolution: 'approved', resolvedBy: 'test' },
    );
    expect(resolved.finalVerdict).to.equal('allow');
    await h.graphSettled();
    expect((await request(h.app).get(`/v1/events/${first.body.id}`).set(bearer(h.tenant.keys.sk_test))).body.external_user_id).to.equal(
      'bounced',
    );
    expect((await transactionsThrough(bouncer!, direct, database)) - before).to.be.greaterThan(10);
  });

  it('lets a running instance hear every change: a revoked key is refused, a new block-list entry matched and a publication applied, each within the bound', async () => {
    // The README's bound on memory (MEMORY_STALENESS_MS's default); announcements take milliseconds.
    const bound = 3_000;
    const deps = testDeps();
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const doomed = await createKey(deps.db, tenant.tenantId, 'secret', 'test');
    const server = await startServer({ DATABASE_URL: bouncer!.url(direct), DATABASE_DIRECT_URL: direct });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const status = async (key: string) => (await fetch(`${base}/v1/events`, { headers: bearer(key) })).status;
      const verdict = async (body: object) => {
        const res = await fetch(`${base}/v1/verdict`, {
          method: 'POST',
          headers: { ...bearer(tenant.keys.sk_test), 'Content-Type': 'application/json', 'X-Forwarded-For': aClientIp() },
          body: JSON.stringify(body),
        });
        expect(res.status).to.equal(200);
        return (await res.json()) as { verdict: string; reasons: { code: string }[]; policy_version: string };
      };
      // Each change is made elsewhere (this process's own pool, straight to Postgres), as
      // `doorman key revoke`, `doorman list add` and `doorman policy publish` make it.
      const heard = async (what: string, change: () => Promise<unknown>, seen: () => Promise<boolean>) => {
        const started = Date.now();
        await change();
        await until(what, async () => ((await seen()) ? true : undefined), bound);
        return Date.now() - started;
      };

      expect(await status(doomed)).to.equal(200);
      await heard(
        'the revoked key refused',
        () => revokeApiKey(deps.db, doomed),
        async () => (await status(doomed)) === 401,
      );
      expect(await status(tenant.keys.sk_test)).to.equal(200);

      const email = `listed.${Date.now()}@${DOMAINS.good}`;
      const blocklisted = async () => (await verdict(aSignup({ email }))).reasons.some((r) => r.code === 'blocklisted');
      expect(await blocklisted()).to.equal(false);
      await heard(
        'the block-list entry matched',
        () => changeList(deps.db, scope, { action: 'add', list: 'block', kind: 'email', value: email }),
        blocklisted,
      );

      let version = '';
      await heard(
        'the publication in force',
        async () => {
          version = await publishPolicy(deps, scope, { document: aDocument() });
        },
        async () => (await verdict(aSignup())).policy_version === version,
      );
    } finally {
      await server.stop();
    }
  });
});

describe('PG_NAMED_STATEMENTS', () => {
  const pooled = 'postgres://u@127.0.0.1:6432/d';
  const direct = 'postgres://u@127.0.0.1:5432/d';
  it('names the hot statements on a direct connection and not behind a pooler, unless told', () => {
    expect(loadConfig({ DATABASE_URL: direct }).pgNamedStatements).to.equal(true);
    expect(loadConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct }).pgNamedStatements).to.equal(false);
    expect(loadConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct, PG_NAMED_STATEMENTS: 'true' }).pgNamedStatements).to.equal(true);
    expect(loadConfig({ DATABASE_URL: direct, PG_NAMED_STATEMENTS: 'false' }).pgNamedStatements).to.equal(false);
    expect(() => loadConfig({ DATABASE_URL: direct, PG_NAMED_STATEMENTS: 'yes' })).to.throw(ConfigError, /PG_NAMED_STATEMENTS/);
  });
});
