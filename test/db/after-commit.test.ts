// afterCommit (db/queryable.ts): what a transaction queued is announced once it has committed
// (the graph outbox wakes its writers this way), never before and never after a rollback.
import { expect } from 'chai';
import { afterCommit, inTransaction } from '../../src/db/queryable.js';
import { testDeps } from '../support/test-deps.js';

describe('afterCommit', () => {
  const deps = testDeps();

  it('runs after COMMIT inside a transaction, once the work is visible to another connection', async () => {
    const seen: string[] = [];
    let visibleAtHook: Promise<boolean> | undefined;
    const table = `after_commit_${process.pid}_${Date.now()}`;
    await deps.db.query(`CREATE TABLE ${table} (id int)`);
    try {
      await inTransaction(deps.db, async (tx) => {
        await tx.query(`INSERT INTO ${table} VALUES (1)`);
        afterCommit(tx, () => {
          seen.push('hook');
          // Read from another connection at the moment the hook runs; awaited below.
          visibleAtHook = deps.db.query(`SELECT count(*)::int AS n FROM ${table}`).then(({ rows }) => rows[0].n === 1);
        });
        seen.push('inside');
      });
      expect(seen).to.deep.equal(['inside', 'hook']);
      expect(await visibleAtHook).to.equal(true);
    } finally {
      await deps.db.query(`DROP TABLE ${table}`);
    }
  });

  it('never runs for a transaction that rolls back, and at once on the pool (a statement commits itself)', async () => {
    const seen: string[] = [];
    await inTransaction(deps.db, async (tx) => {
      afterCommit(tx, () => seen.push('rolled back'));
      throw new Error('abandon');
    }).catch(() => undefined);
    expect(seen).to.deep.equal([]);
    afterCommit(deps.db, () => seen.push('pool'));
    expect(seen).to.deep.equal(['pool']);
  });
});
