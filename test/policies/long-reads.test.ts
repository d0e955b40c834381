// Reading a range of stored decisions takes as long as the range is large (a backtest of a
// million events: minutes), far longer than the service's Postgres statement timeout, which cancels
// a statement mid-range: the cursor then waited for rows that never came, and the backtest stayed
// "running" for good. Each stream reads in a read-only transaction of its own with the statement
// timeout lifted; here the timeout is 200 ms and each stream takes well over a second.
import { expect } from 'chai';
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
        await pause(150);
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
        await pause(150);
      },
      5,
    );
    expect(seen).to.equal(60);
  });

  it("leaves the pool's connections with the service's statement timeout", async () => {
    const { rows } = await deps.db.query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(rows[0]!.statement_timeout).to.equal('200ms');
  });
});
