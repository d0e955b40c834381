// Postgres behind PgBouncer in transaction mode (issue 15, docs/pgbouncer.md): with DATABASE_URL
// through a real PgBouncer and DATABASE_DIRECT_URL straight to Postgres, the verdict path, its
// Idempotency-Key, PATCH, feedback and a review resolution (a job queued in the caller's
// transaction) all work, and PgBouncer carried their transactions.
import { expect } from 'chai';
import request from 'supertest';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { bearer } from '../support/fixtures.js';
import { pgbouncerAvailable, startPgBouncer, transactionsThrough, type PgBouncer } from '../support/pgbouncer.js';
import { testConfig } from '../support/test-deps.js';
import { aSignup, IPS, verdictHarness } from '../support/verdict-harness.js';

describe('Postgres behind PgBouncer (transaction mode)', function () {
  this.timeout(90_000);
  let bouncer: PgBouncer | undefined;
  const direct = testConfig().databaseUrl;
  before(async function () {
    if (!(await pgbouncerAvailable())) {
      if (process.env.CI) throw new Error('pgbouncer is not installed (scripts/stack.sh installs it)');
      this.skip();
    }
    bouncer = await startPgBouncer(direct);
  });
  after(async () => bouncer?.stop());

  it('serves verdicts, replays, PATCH, feedback and resolutions through it, with sessions on the direct URL', async () => {
    const database = new URL(direct).pathname.slice(1);
    const before = await transactionsThrough(bouncer!, direct, database);
    const h = await verdictHarness({ DATABASE_URL: bouncer!.url(direct), DATABASE_DIRECT_URL: direct });
    expect(h.deps.config.databaseDirectUrl).to.equal(direct);
    const send = (body: object, key?: string) => {
      const r = request(h.app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test));
      return (key ? r.set('Idempotency-Key', key) : r).send(body);
    };
    const body = aSignup({ identity: { phone: '+15559600001' } });
    const first = await send(body, 'bounced-1');
    expect(first.status).to.equal(200);
    expect((await send(body, 'bounced-1')).text).to.equal(first.text);
    await request(h.app).patch(`/v1/events/${first.body.id}`).set(bearer(h.tenant.keys.sk_test)).send({ external_user_id: 'bounced' }).expect(200);
    await request(h.app).post('/v1/feedback').set(bearer(h.tenant.keys.sk_test)).send({ subject: { kind: 'event_id', value: first.body.id }, outcome: 'chargeback' }).expect(200);
    const review = await send(aSignup({ ip: IPS.tor }));
    const resolved = await resolveReview(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, { eventId: review.body.id, resolution: 'approved', resolvedBy: 'test' });
    expect(resolved.finalVerdict).to.equal('allow');
    await h.graphSettled();
    expect((await request(h.app).get(`/v1/events/${first.body.id}`).set(bearer(h.tenant.keys.sk_test))).body.external_user_id).to.equal('bounced');
    expect(await transactionsThrough(bouncer!, direct, database) - before).to.be.greaterThan(10);
  });
});
