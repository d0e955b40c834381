// A 500 means the request never reached a decision (contract §7), so a write that times out must
// not commit afterwards. Postgres holds its own bounds below the client's: a statement
// is cancelled and rolled back at PG_STATEMENT_TIMEOUT_MS, before the client gives up at
// PG_QUERY_TIMEOUT_MS, and a transaction left idle is ended at PG_IDLE_IN_TRANSACTION_TIMEOUT_MS.
import { expect } from 'chai';
import pg from 'pg';
import request from 'supertest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { bearer } from '../support/fixtures.js';
import { testConfig, testDeps } from '../support/test-deps.js';
import { aSignup, verdictHarness } from '../support/verdict-harness.js';

describe('a write that times out', function () {
  this.timeout(60_000);

  it('commits nothing: the signup answered 500 is not stored once the blocking lock goes', async () => {
    const h = await verdictHarness({ PG_QUERY_TIMEOUT_MS: '2000' });
    expect(h.deps.config.pgStatementTimeoutMs).to.equal(1600);
    // Another session holds graph_outbox in SHARE mode: the verdict's one statement (event,
    // review, outbox row) waits on it past every timeout.
    const blocker = new pg.Client({ connectionString: testConfig().databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE graph_outbox IN SHARE MODE');
      const started = Date.now();
      const res = await request(h.app)
        .post('/v1/verdict')
        .set(bearer(h.tenant.keys.sk_test))
        .send(aSignup({ external_user_id: 'timed_out', identity: { phone: '+15559900001' } }));
      expect(res.status).to.equal(500);
      expect(res.body.error).to.equal('internal');
      // Postgres gave up first, not the client: a statement the client abandons keeps waiting on
      // the lock in its backend (and would commit once the lock goes); one Postgres cancelled does not.
      const waiting = await blocker.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      expect(waiting.rows[0].n).to.equal(0);
      // Hold the lock past the client's timeout: a write still waiting on it would commit once it goes.
      await new Promise((resolve) => setTimeout(resolve, 3000 - (Date.now() - started)));
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stored = await h.deps.db.query(
      `SELECT (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events,
              (SELECT count(*)::int FROM reviews WHERE tenant_id = $1) AS reviews,
              (SELECT count(*)::int FROM graph_outbox WHERE tenant_id = $1) AS outbox`,
      [h.tenant.tenantId],
    );
    expect(stored.rows[0]).to.deep.equal({ events: 0, reviews: 0, outbox: 0 });
    const listed = await request(h.app).get('/v1/events').set(bearer(h.tenant.keys.sk_test)).expect(200);
    expect(listed.body.events).to.deep.equal([]);
  });

  it('ends a transaction left idle past its bound, releasing its locks', async () => {
    const deps = testDeps({ PG_QUERY_TIMEOUT_MS: '600' });
    const client = await deps.db.connect();
    let failure: Error | undefined;
    // The server ends the session: a checked-out client reports it as an 'error' event.
    client.on('error', (err: Error) => {
      failure ??= err;
    });
    try {
      await client.query('BEGIN');
      await client.query('SELECT 1');
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await client.query('SELECT 1').catch((err: Error) => {
        failure = err;
      });
    } finally {
      client.release(true);
    }
    expect(failure?.message).to.match(/idle-in-transaction timeout|terminat|Connection/i);
  });

  it("refuses a server bound that is not below the client's", () => {
    expect(() => loadConfig({ PG_QUERY_TIMEOUT_MS: '3000', PG_STATEMENT_TIMEOUT_MS: '3000' })).to.throw(
      ConfigError,
      /PG_STATEMENT_TIMEOUT_MS/,
    );
    expect(loadConfig({ PG_QUERY_TIMEOUT_MS: '3000', PG_STATEMENT_TIMEOUT_MS: '2500' }).pgStatementTimeoutMs).to.equal(2500);
    // Behind a transaction-mode pooler they are not sent (it refuses them): set them on the role.
    expect(
      loadConfig({ DATABASE_URL: 'postgres://a@127.0.0.1:6432/d', DATABASE_DIRECT_URL: 'postgres://a@127.0.0.1:5432/d' }).pgServerTimeouts,
    ).to.equal(false);
  });
});
