// API keys answered from memory (src/tenants/key-directory.ts) only while that memory can prove it
// is current. The directory's LISTEN goes through a TCP proxy on loopback that a test
// cuts or silences (test/support/tcp-fault-proxy.ts); every other statement goes straight to
// Postgres. A silent connection is noticed within the bound; a read begun under an earlier
// connection never lands in memory after a reconnect (the stall is injected, not waited for).
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { hashKey } from '../../src/tenants/api-key.js';
import { createKeyDirectory, KEY_CHANNEL, type KeyDirectory } from '../../src/tenants/key-directory.js';
import { revokeApiKey } from '../../src/tenants/manage-tenants.js';
import { aClientIp, aTenant, bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { settled, stallFirst } from '../support/stall-first.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { testConfig, testDeps } from '../support/test-deps.js';

const isAllKeys = (q: unknown) => typeof q === 'string' && /FROM api_keys\s*$/.test(q.trim());
const isFindKey = (q: unknown) => typeof q === 'object' && q !== null && (q as { name?: string }).name === 'find-key';

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
  // This process's key listener, connected again since the server's time `since` and listening:
  // it has sent a heartbeat, which it does only once its LISTEN is answered.
  const reconnectedSince = async (since: Date) => {
    const { rows } = await deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name = $1 AND backend_start > $2 AND query LIKE 'SELECT pg_notify%'`,
      [`doorman ${process.pid} listen ${KEY_CHANNEL}`, since],
    );
    return rows[0]!.n > 0 ? true : undefined;
  };
  const serverNow = async () => (await deps.db.query<{ now: Date }>('SELECT now()')).rows[0]!.now;

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
    const status = async (key: string) =>
      (await request(app).get('/v1/events').set('X-Forwarded-For', aClientIp()).set(bearer(key))).status;
    expect(await status(tenant.keys.sk_test)).to.equal(200);
    // Every byte either way is dropped and neither end hears of the other's close: no error ever.
    const stalledAt = await serverNow();
    proxy.forget();
    const revokedAt = Date.now();
    await revokeApiKey(deps.db, tenant.keys.sk_test);
    await until('the revoked key refused', async () => ((await status(tenant.keys.sk_test)) === 401 ? true : undefined), 5_000);
    expect(Date.now() - revokedAt).to.be.below(5_000);
    // Postgres ends the session it can no longer reach (its heartbeats stopped): an orphaned
    // listener would hold back the notification queue of every listener.
    await until(
      'the silenced session ended',
      async () => {
        const { rows } = await deps.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND backend_start < $2',
          [`doorman ${process.pid} listen ${KEY_CHANNEL}`, stalledAt],
        );
        return rows[0]!.n === 0 ? true : undefined;
      },
      20_000,
    );
    proxy.restore();
    await until('memory trusted again', async () => (keys.trusted() ? true : undefined), 20_000);
    expect(await status(tenant.keys.sk_test)).to.equal(401);
    expect(await status(tenant.keys.sk_live)).to.equal(200);
  });

  it('bounds its staleness at 3 s unless MEMORY_STALENESS_MS says otherwise, and at no less than 300 ms', () => {
    expect(loadConfig({}).memoryStalenessMs).to.equal(3_000);
    expect(loadConfig({ MEMORY_STALENESS_MS: '1500' }).memoryStalenessMs).to.equal(1_500);
    expect(() => loadConfig({ MEMORY_STALENESS_MS: '100' })).to.throw(ConfigError, /MEMORY_STALENESS_MS/);
  });

  it('never trusts a load read under an earlier connection: a key revoked while disconnected stays revoked', async () => {
    const tenant = await aTenant(deps);
    const hash = hashKey(tenant.keys.sk_test);
    const stall = stallFirst(deps.db, isAllKeys);
    const keys = createKeyDirectory(stall.db);
    watched(keys);
    // The first load has read every key (this one not revoked) and stalls.
    await stall.hasRead;
    proxy.cut();
    // Revoked while no connection listens: its announcement is never heard.
    await revokeApiKey(deps.db, tenant.keys.sk_test);
    const restoredAt = await serverNow();
    proxy.restore();
    await until('the listener connected again', () => reconnectedSince(restoredAt), 20_000);
    // Had the new connection's own load run beside the stalled one, memory would be trusted
    // within milliseconds: give it that chance.
    await until('a load of the new connection', async () => (keys.trusted() ? true : undefined), 1_000).catch(() => undefined);
    stall.release();
    await settled();
    await until('memory trusted', async () => (keys.trusted() ? true : undefined), 10_000);
    expect((await keys.find(hash))?.revoked).to.equal(true);
  });

  it('never keeps a row a lookup read under an earlier connection', async () => {
    const stall = stallFirst(deps.db, isFindKey);
    const keys = createKeyDirectory(stall.db);
    watched(keys);
    await keys.whenLoaded(10_000);
    expect(keys.trusted()).to.equal(true);
    // A key made after the load: looked up in Postgres, and the lookup stalls once it has read.
    const tenant = await aTenant(deps);
    const hash = hashKey(tenant.keys.sk_test);
    const lookup = keys.find(hash);
    await stall.hasRead;
    proxy.cut();
    await until('memory no longer trusted', async () => (keys.trusted() ? undefined : true), 5_000);
    await revokeApiKey(deps.db, tenant.keys.sk_test);
    proxy.restore();
    await until('memory trusted again', async () => (keys.trusted() ? true : undefined), 20_000);
    stall.release();
    // The lookup answers what it read when it began; memory must not keep it.
    expect((await lookup)?.revoked).to.equal(false);
    await settled();
    expect((await keys.find(hash))?.revoked).to.equal(true);
  });
});
