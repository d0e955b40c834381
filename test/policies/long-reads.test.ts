// Reading a range of stored decisions takes as long as the range is large (a backtest of a
// million events: minutes), far longer than the service's Postgres statement timeout, which cancels
// a statement mid-range: the cursor then waited for rows that never came, and the backtest stayed
// "running" for good; and pg's query timeout, counted from the cursor's start, ended it early as
// if the range were read, silently. Each stream reads on a connection of its own, in a read-only
// transaction with the statement timeout lifted, each batch within the query timeout; here the
// statement timeout is 200 ms, the query timeout 2 s, and each stream takes 2.4 s.
import { expect } from 'chai';
import { streamRows } from '../../src/db/long-read.js';
import { streamDecisions, streamForBacktest } from '../../src/policies/replay/stored-decisions.js';
import { aTenant } from '../support/fixtures.js';
import { ownTestDeps } from '../support/test-deps.js';
import { seedDecision } from './seed-decisions.js';

const T0 = new Date('2032-01-01T00:00:00Z');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('long reads of stored decisions', function () {
  this.timeout(30_000);
  const deps = ownTestDeps({ PG_STATEMENT_TIMEOUT_MS: '200', PG_QUERY_TIMEOUT_MS: '2000' });
  let scope: { tenantId: string; mode: 'live' };

  before(async () => {
    scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'live' };
    for (let i = 0; i < 60; i++) {
      await seedDecision(deps.db, scope, { createdAt: new Date(T0.getTime() + i * 1000), signals: { eventType: 'signup' } });
    }
  });

  const range = () => ({ scope, from: T0, to: new Date(T0.getTime() + 3_600_000) });

  it("streams a backtest's range to its end, however much longer than the statement timeout it takes", async () => {
    let seen = 0;
    await streamForBacktest(
      deps.db,
      range(),
      async (batch) => {
        seen += batch.length;
        await pause(200);
      },
      5,
    );
    expect(seen).to.equal(60);
  });

  it("streams a replay's range to its end the same way", async () => {
    let seen = 0;
    await streamDecisions(
      deps.db,
      range(),
      async (batch) => {
        seen += batch.length;
        await pause(200);
      },
      5,
    );
    expect(seen).to.equal(60);
  });

  it('fails a read whose batch does not come within the query timeout, rather than end the range early', async () => {
    let batches = 0;
    const started = Date.now();
    const failed = await streamRows(deps.db, { text: 'SELECT pg_sleep(5)', values: [], batchSize: 1 }, () => {
      batches += 1;
    }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(failed?.message).to.match(/no answer within 2000 ms/);
    expect(batches).to.equal(0);
    expect(Date.now() - started).to.be.below(4_500);
  });

  it("leaves the pool's connections with the service's statement timeout", async () => {
    const { rows } = await deps.db.query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(rows[0]!.statement_timeout).to.equal('200ms');
  });
});
