// Postgres behind a fault proxy: slow, reset mid-request, stalled, down then up. The contract:
// a verdict that cannot be stored is 500 `internal` (retryable) and /health is 503; a retry with
// the same Idempotency-Key after recovery gets a decision; a request that got a 500 leaves no
// trace (no event, no graph node, no velocity count).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { api, missingSources, reasonCodes, type ApiResponse } from '../support/api-client.js';
import { startFaultStack, type FaultStack } from '../support/fault-stack.js';
import { graphEventIds, storedEventIds } from '../support/graph-facts.js';
import { freePort, until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { FAULT_ENV } from './fault-env.js';

const deps = testDeps();

describe('faults: Postgres', function () {
  this.timeout(120_000);
  let stack: FaultStack;
  let base: string;
  let tenant: TestTenant;
  let client: ReturnType<typeof api>;
  let ipCounter = 0;
  // A signup from its own ip, so velocity counts can be read per test.
  const signup = (ip: string) => ({
    event_type: 'signup',
    ip,
    external_user_id: `u_${randomUUID().slice(0, 8)}`,
    identity: { phone: `+1555${randomUUID().slice(0, 6)}` },
  });
  const freshIp = () => `100.66.${Math.floor(ipCounter / 200)}.${(ipCounter++ % 200) + 1}`;

  before(async () => {
    stack = await startFaultStack('postgres');
    const env = { ...FAULT_ENV, DNS_SERVERS: `127.0.0.1:${await freePort()}` };
    base = `http://127.0.0.1:${(await stack.startApi(env)).port}`;
    await stack.startWorker(env);
    tenant = await aTenant(deps);
    client = api(base, tenant.keys.sk_test);
  });
  afterEach(async () => {
    await stack.heal();
    await until('health back', async () => ((await client.health()).status === 200 ? true : undefined), 30_000);
  });
  after(() => stack?.close());

  function expectRetryable500(res: ApiResponse) {
    expect(res.status, JSON.stringify(res.body)).to.equal(500);
    expect(res.body.error).to.equal('internal');
    expect(res.body.message).to.match(/Retry/);
  }

  async function expectHealth503() {
    const health = await client.health();
    expect(health.status).to.equal(503);
    expect(health.body.error).to.equal('internal');
    expect(health.body.checks.postgres.status).to.equal('down');
    expect(health.ms).to.be.below(5000);
  }

  // After recovery: every request retried with its key gets a decision; the retries are the only
  // events; one more signup from the same ip is not flagged (at most 5 counted: velocity_ip_signups
  // fires past 5), so the failed tries were not counted.
  async function expectCleanRecovery(failed: { key: string; body: object }[], ip: string) {
    const retried = [];
    for (const { key, body } of failed) {
      const res = await client.verdict(body, key);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.verdict).to.be.oneOf(['allow', 'review', 'block']);
      retried.push(res.body.id as string);
    }
    const extra = await client.verdict(signup(ip));
    expect(extra.status).to.equal(200);
    expect(reasonCodes(extra)).not.to.include('velocity_ip_signups');
    const stored = await storedEventIds(deps, tenant.tenantId);
    expect(stored).to.include.members([...retried, extra.body.id]);
    // No ghost: the graph knows exactly the stored events (once the worker has applied them).
    await until(
      'graph to match Postgres',
      async () => {
        const [inGraph, inPostgres] = [await graphEventIds(deps, tenant.tenantId), await storedEventIds(deps, tenant.tenantId)];
        const ghosts = inGraph.filter((id) => !inPostgres.includes(id));
        const missing = inPostgres.filter((id) => !inGraph.includes(id));
        if (ghosts.length + missing.length > 0)
          throw new Error(`graph-only (ghosts): ${ghosts.join(' ')}; not yet in graph: ${missing.join(' ')}`);
        return true;
      },
      60_000,
    );
  }

  it('slow beyond the signal deadline: still a decision, and the lists (held in memory) are not missing', async () => {
    await stack.latency('postgres', 500);
    const res = await client.verdict(signup(freshIp()));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // Lists are matched in memory: only the write waits on Postgres, and it is not bound by the
    // signal deadline.
    expect([...missingSources(res, 'timeout_failopen'), ...missingSources(res, 'partial_enrichment')]).not.to.include('lists');
    // Postgres was slow for this verdict (its answer lookup and its write each waited).
    expect(res.ms).to.be.at.least(1_000);
    expect((await client.event(res.body.id)).status).to.equal(200);
  });

  it('connection reset mid-request: 500 internal, /health 503, then a same-key retry decides and nothing failed left a trace', async () => {
    const ip = freshIp();
    const attempts = Array.from({ length: 4 }, () => ({ key: randomUUID(), body: signup(ip) }));
    // Slow first, so every request is waiting on Postgres when the connections are reset.
    await stack.latency('postgres', 800);
    const inFlight = attempts.map(({ key, body }) => client.verdict(body, key));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await stack.reset('postgres');
    for (const res of await Promise.all(inFlight)) expectRetryable500(res);
    await expectHealth503();
    await stack.heal();
    await until('health back', async () => ((await client.health()).status === 200 ? true : undefined), 30_000);
    await expectCleanRecovery(attempts, ip);
  });

  it('stalled: 500 internal within the query timeout, /health 503, then a same-key retry decides', async () => {
    const ip = freshIp();
    const attempt = { key: randomUUID(), body: signup(ip) };
    await stack.stall('postgres');
    const res = await client.verdict(attempt.body, attempt.key);
    expectRetryable500(res);
    expect(res.ms).to.be.below(3 * Number(FAULT_ENV.PG_QUERY_TIMEOUT_MS) + 2000);
    await expectHealth503();
    await stack.heal();
    await until('health back', async () => ((await client.health()).status === 200 ? true : undefined), 30_000);
    await expectCleanRecovery([attempt], ip);
  });

  it('down, then up: 500 internal at once and /health 503; once back, a same-key retry decides', async () => {
    const ip = freshIp();
    const attempts = Array.from({ length: 3 }, () => ({ key: randomUUID(), body: signup(ip) }));
    await stack.down('postgres');
    for (const { key, body } of attempts) {
      const res = await client.verdict(body, key);
      expectRetryable500(res);
      expect(res.ms).to.be.below(5000);
    }
    await expectHealth503();
    await stack.up('postgres');
    await until('health back', async () => ((await client.health()).status === 200 ? true : undefined), 30_000);
    await expectCleanRecovery(attempts, ip);
  });

  // The idempotency record is written in the verdict's one statement: when Postgres goes
  // away while the write waits, nothing of the attempt stays behind, no claim among it.
  it('gone while the verdict waits to write: a same-key retry after recovery still decides', async () => {
    const ip = freshIp();
    const attempt = { key: randomUUID(), body: signup(ip) };
    // Hold the event write on a table lock (taken directly, not through the proxy), so the
    // request is past its claim and waiting to write when Postgres goes away.
    const locker = await deps.db.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
      const inFlight = client.verdict(attempt.body, attempt.key);
      await until('the verdict to wait on the lock', async () => {
        const { rows } = await deps.db.query(
          "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'events'::regclass AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        );
        return rows[0].n > 0 ? true : undefined;
      });
      await stack.down('postgres');
      expectRetryable500(await inFlight);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    await stack.up('postgres');
    await until('health back', async () => ((await client.health()).status === 200 ? true : undefined), 30_000);
    await expectCleanRecovery([attempt], ip);
  });
});
