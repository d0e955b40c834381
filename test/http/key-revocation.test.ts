// Keys are answered from each instance's memory; a revocation reaches every running
// instance through Postgres's announcement. Two real `doorman serve` processes, one revocation by
// the use case behind `doorman key revoke`, each instance polled until it refuses the key.
import { expect } from 'chai';
import { createKey, revokeApiKey } from '../../src/tenants/manage-tenants.js';
import { aTenant, bearer } from '../support/fixtures.js';
import { startServer, type Child } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';

describe('a revoked key across running instances', function () {
  this.timeout(90_000);
  let servers: Child[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('is refused by both instances within a second of the revocation, and other keys keep working', async () => {
    const deps = testDeps();
    const tenant = await aTenant(deps);
    const doomed = await createKey(deps.db, tenant.tenantId, 'secret', 'test');
    servers = await Promise.all([startServer(), startServer()]);
    const status = async (server: Child, key: string) =>
      (await fetch(`http://127.0.0.1:${server.port}/v1/events`, { headers: bearer(key) })).status;
    // Both instances have served the key (from memory once loaded).
    for (const server of servers) expect(await status(server, doomed)).to.equal(200);
    const revokedAt = Date.now();
    await revokeApiKey(deps.db, doomed);
    const refusedAfter = await Promise.all(
      servers.map(async (server) => {
        for (;;) {
          if ((await status(server, doomed)) === 401) return Date.now() - revokedAt;
          if (Date.now() - revokedAt > 5_000) return Infinity;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }),
    );
    for (const ms of refusedAfter) expect(ms).to.be.below(1_000);
    // Refused from then on, on both, and the tenant's other key still works.
    for (const server of servers) {
      expect(await status(server, doomed)).to.equal(401);
      expect(await status(server, tenant.keys.sk_test)).to.equal(200);
    }
  });
});
