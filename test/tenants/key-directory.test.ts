// API keys answered from memory (src/tenants/key-directory.ts) only while that memory can prove it
// is current (issue 37). The directory's LISTEN goes through a TCP proxy on loopback that a test
// silences (test/support/tcp-fault-proxy.ts); every other statement goes straight to Postgres.
// A silent connection is noticed within the bound.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { createKeyDirectory, type KeyDirectory } from '../../src/tenants/key-directory.js';
import { revokeApiKey } from '../../src/tenants/manage-tenants.js';
import { aClientIp, aTenant, bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { testConfig, testDeps } from '../support/test-deps.js';

describe('the key directory', function () {
  this.timeout(90_000);
  const deps = testDeps();
  let proxy: TcpFaultProxy;
  let watch: { close(): Promise<void> } | undefined;

  // The config whose DATABASE_DIRECT_URL (the LISTEN's) goes through the proxy.
  const listeningThroughProxy = (): Config => {
    const u = new URL(deps.config.databaseUrl);
    u.hostname = '127.0.0.1';
    u.port = String(proxy.port);
    return testConfig({ DATABASE_DIRECT_URL: u.toString() });
  };
  const watched = (keys: KeyDirectory) => {
    watch = keys.watch({ config: listeningThroughProxy(), logger: deps.logger });
  };
  beforeEach(async () => {
    const target = new URL(deps.config.databaseUrl);
    proxy = await startTcpFaultProxy(Number(target.port || 5432));
  });
  afterEach(async () => {
    await Promise.all([watch?.close(), proxy.close()]);
    watch = undefined;
  });

  it('refuses a key revoked while its announcements connection is silent within 5 s, and trusts its memory again once the connection carries', async () => {
    // Made before the load, so memory holds the key with no announcement of it still on its way.
    const tenant = await aTenant(deps);
    const keys = createKeyDirectory(deps.db);
    watched(keys);
    await keys.whenLoaded(10_000);
    expect(keys.trusted()).to.equal(true);
    const app = createApp({ ...deps, keys });
    const status = async (key: string) => (await request(app).get('/v1/events').set('X-Forwarded-For', aClientIp()).set(bearer(key))).status;
    expect(await status(tenant.keys.sk_test)).to.equal(200);
    // Both sockets stay open and every byte either way is dropped: no error, no close.
    proxy.stall();
    const revokedAt = Date.now();
    await revokeApiKey(deps.db, tenant.keys.sk_test);
    await until('the revoked key refused', async () => ((await status(tenant.keys.sk_test)) === 401 ? true : undefined), 5_000);
    expect(Date.now() - revokedAt).to.be.below(5_000);
    proxy.restore();
    await until('memory trusted again', async () => (keys.trusted() ? true : undefined), 20_000);
    expect(await status(tenant.keys.sk_test)).to.equal(401);
    expect(await status(tenant.keys.sk_live)).to.equal(200);
  });
});
