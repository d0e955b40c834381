// The CLI's partial deps (src/partial-deps.ts) are createDeps's parts, built alike (rule 9): the
// same pool settings, a vault under the same master keys, and closed by their own close().
import { expect } from 'chai';
import { pino } from 'pino';
import { createPartialDeps } from '../src/partial-deps.js';
import { testConfig, testDeps } from './support/test-deps.js';

// The settings a pool was made with, functions (the socket factory, the client class) left out.
const settingsOf = (pool: unknown) => JSON.parse(JSON.stringify((pool as { options: object }).options)) as object;

describe('partial deps', () => {
  it('configure the Postgres pool as createDeps does, and close it', async () => {
    const some = await createPartialDeps(testConfig(), pino({ level: 'silent' }), ['db']);
    expect(settingsOf(some.db)).to.deep.equal(settingsOf(testDeps().db));
    expect((await some.db.query<{ one: number }>('SELECT 1 AS one')).rows).to.deep.equal([{ one: 1 }]);
    await some.close();
    expect(some.db.ending).to.equal(true);
  });

  it('open what the vault of createDeps sealed: the same master keys and data keys', async () => {
    const some = await createPartialDeps(testConfig(), pino({ level: 'silent' }), ['vault']);
    try {
      const sealed = await testDeps().vault.seal('partial-deps/check', Buffer.from('one secret'));
      expect((await some.vault.open('partial-deps/check', sealed)).toString()).to.equal('one secret');
      expect(some.vault.masters.map((m) => m.kid)).to.deep.equal(testDeps().vault.masters.map((m) => m.kid));
    } finally {
      await some.close();
    }
  });
});
