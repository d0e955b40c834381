// Allow and block lists answered from memory (src/lists/list-directory.ts) only while that memory
// is current: a load that read before a lost connection never makes the memory trusted
// after the reconnect, so an entry added while disconnected is matched. The directory's LISTEN
// goes through a TCP proxy on loopback that the test cuts (test/support/tcp-fault-proxy.ts); the
// stall of the load is injected (test/support/stall-first.ts), not waited for.
import { expect } from 'chai';
import { createListDirectory, LIST_CHANNEL } from '../../src/lists/list-directory.js';
import { changeList } from '../../src/lists/manage-lists.js';
import { aTenant } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { settled, stallFirst } from '../support/stall-first.js';
import { startTcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { testConfig, testDeps } from '../support/test-deps.js';

const isAllEntries = (q: unknown) => typeof q === 'string' && /FROM list_entries\s*$/.test(q.trim());

describe('the list directory', function () {
  this.timeout(60_000);
  const deps = testDeps();

  it('never trusts a load read under an earlier connection: an entry added while disconnected is matched', async () => {
    const target = new URL(deps.config.databaseUrl);
    const proxy = await startTcpFaultProxy(Number(target.port || 5432));
    const listening = new URL(target);
    listening.hostname = '127.0.0.1';
    listening.port = String(proxy.port);
    const scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'live' as const };
    const value = `late.${Date.now()}@example.com`;
    const candidates = [{ kind: 'email', value }];
    const stall = stallFirst(deps.db, isAllEntries);
    const lists = createListDirectory(stall.db);
    const watch = lists.watch({ config: testConfig({ DATABASE_DIRECT_URL: listening.toString() }), logger: deps.logger });
    try {
      // The first load has read every entry (not this one, not yet added) and stalls.
      await stall.hasRead;
      proxy.cut();
      // Added while no connection listens: its announcement is never heard.
      await changeList(deps.db, scope, { action: 'add', list: 'block', kind: 'email', value });
      const restoredAt = (await deps.db.query<{ now: Date }>('SELECT now()')).rows[0]!.now;
      proxy.restore();
      // Connected again and listening: a heartbeat is sent only once the LISTEN is answered.
      await until(
        'the listener connected again',
        async () => {
          const { rows } = await deps.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE application_name = $1 AND backend_start > $2 AND query LIKE 'SELECT pg_notify%'`,
            [`doorman ${process.pid} listen ${LIST_CHANNEL}`, restoredAt],
          );
          return rows[0]!.n > 0 ? true : undefined;
        },
        20_000,
      );
      stall.release();
      await settled();
      // Trusted or not (then read from Postgres), the entry is matched.
      expect(await lists.match(scope, candidates)).to.have.length(1);
      await until('memory trusted', async () => (lists.trusted() ? true : undefined), 10_000);
      expect(await lists.match(scope, candidates)).to.deep.equal([{ list: 'block', kind: 'email', value }]);
    } finally {
      await Promise.all([watch.close(), proxy.close()]);
    }
  });
});
