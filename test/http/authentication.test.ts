// The auth matrix of contract §5: every 401 cause, every key kind on every route. Made-up keys
// cost one lookup each at most, and an address past its failed authentications gets 429 for keys
// not seen to work, while keys in use keep working.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type pg from 'pg';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import type { Deps } from '../../src/deps.js';
import { redisReady } from '../../src/redis/redis-ready.js';
import { hashKey } from '../../src/tenants/api-key.js';
import { revokeApiKey, createKey } from '../../src/tenants/manage-tenants.js';
import { createKeyDirectory } from '../../src/tenants/key-directory.js';
import { aClientIp, aTenant, bearer, type TestTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';

const deps = testDeps();
const app = createApp(deps);

const deviceBody = { components: { screen: '1920x1080', timezone: 'Europe/Paris' } };

async function expectUnauthorized(res: request.Response) {
  expect(res.status).to.equal(401);
  expect(res.body.error).to.equal('unauthorized');
  expect(res.body.message).to.be.a('string').and.not.empty;
}

describe('authentication', () => {
  let tenant: TestTenant;
  before(async () => {
    tenant = await aTenant(deps);
  });

  describe('every 401 cause on a secret route', () => {
    const route = () => request(app).get('/v1/events/evt_0000');
    it('refuses a request with no Authorization header', async () => expectUnauthorized(await route()));
    it('refuses a scheme other than Bearer', async () =>
      expectUnauthorized(await route().set('Authorization', `Basic ${tenant.keys.sk_live}`)));
    it('refuses a malformed key', async () => expectUnauthorized(await route().set(bearer('sk_live_short'))));
    it('refuses a well-formed key that does not exist', async () =>
      expectUnauthorized(await route().set(bearer(`sk_live_${'A'.repeat(32)}`))));
    it('refuses a publishable key', async () => expectUnauthorized(await route().set(bearer(tenant.keys.pk_live))));
    it('refuses a revoked key from its next request on', async () => {
      const key = await createKey(deps.db, tenant.tenantId, 'publishable', 'test');
      const ok = await request(app).post('/v1/device').set(bearer(key)).send(deviceBody);
      expect(ok.status).to.equal(200);
      await revokeApiKey(deps.db, key);
      const res = await request(app).post('/v1/device').set(bearer(key)).send(deviceBody);
      await expectUnauthorized(res);
      expect(res.body.message).to.match(/revoked/);
    });
    it('never stores the key itself, only its hash', async () => {
      const { rows } = await deps.db.query('SELECT key_hash, hint FROM api_keys WHERE tenant_id = $1', [tenant.tenantId]);
      const stored = JSON.stringify(rows);
      for (const key of Object.values(tenant.keys)) {
        expect(stored).not.to.contain(key);
        expect(rows.map((r) => r.key_hash)).to.include(hashKey(key));
      }
    });
  });

  describe('POST /v1/device takes publishable keys only', () => {
    for (const kind of ['pk_live', 'pk_test'] as const) {
      it(`accepts ${kind}`, async () => {
        const res = await request(app).post('/v1/device').set(bearer(tenant.keys[kind])).send(deviceBody);
        expect(res.status).to.equal(200);
        expect(res.body.device_token).to.be.a('string');
      });
    }
    for (const kind of ['sk_live', 'sk_test'] as const) {
      it(`refuses ${kind}`, async () =>
        expectUnauthorized(await request(app).post('/v1/device').set(bearer(tenant.keys[kind])).send(deviceBody)));
    }
  });

  describe('secret routes refuse publishable keys', () => {
    const routes: [string, (t: TestTenant, key: string) => request.Test][] = [
      ['GET /v1/events/{id}', (_t, key) => request(app).get('/v1/events/evt_1').set(bearer(key))],
    ];
    for (const [name, call] of routes) {
      for (const kind of ['pk_live', 'pk_test'] as const) {
        it(`${name} refuses ${kind}`, async () => expectUnauthorized(await call(tenant, tenant.keys[kind])));
      }
      for (const kind of ['sk_live', 'sk_test'] as const) {
        it(`${name} accepts ${kind}`, async () => expect((await call(tenant, tenant.keys[kind])).status).not.to.equal(401));
      }
    }
  });

  describe('made-up keys', () => {
    // The real pool, counting the key lookups it is asked for.
    function counted(deps: Deps): { deps: Deps; lookups: () => number } {
      let lookups = 0;
      const db = new Proxy(deps.db, {
        get(target, prop, receiver) {
          if (prop !== 'query') return Reflect.get(target, prop, receiver);
          return (...args: unknown[]) => {
            if ((args[0] as { name?: string } | undefined)?.name === 'find-key') lookups += 1;
            return (target.query as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }) as pg.Pool;
      // Keys are read through the key directory (not watched here: each lookup reads Postgres).
      return { deps: { ...deps, db, keys: createKeyDirectory(db) }, lookups: () => lookups };
    }
    const madeUp = () =>
      `sk_live_${randomBytes(24)
        .toString('base64url')
        .replace(/[^A-Za-z0-9]/g, 'x')
        .slice(0, 32)}`;

    it('looks a made-up key up once, not on every request', async () => {
      const c = counted(testDeps());
      const door = createApp(c.deps);
      const key = madeUp();
      for (let i = 0; i < 5; i++)
        await expectUnauthorized(await request(door).get('/v1/events').set('X-Forwarded-For', aClientIp()).set(bearer(key)));
      expect(c.lookups()).to.equal(1);
    });

    it('answers 429 without a lookup once an address has failed too often, and keeps serving keys that work', async () => {
      const base = testDeps({ AUTH_FAILURES_PER_IP: '5', AUTH_FAILURE_WINDOW_SECONDS: '60' });
      await redisReady(base.redis, 5000);
      const c = counted(base);
      const door = createApp(c.deps);
      const ip = aClientIp();
      // A key that works, used from that address before the guessing starts.
      await request(door).get('/v1/events').set('X-Forwarded-For', ip).set(bearer(tenant.keys.sk_live)).expect(200);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++)
        statuses.push((await request(door).get('/v1/events').set('X-Forwarded-For', ip).set(bearer(madeUp()))).status);
      expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429, 429, 429]);
      // One lookup for the working key, one per refused guess; none for the 429s.
      expect(c.lookups()).to.equal(6);
      const limited = await request(door).get('/v1/events').set('X-Forwarded-For', ip).set(bearer(madeUp()));
      expect(limited.body.error).to.equal('rate_limited');
      expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
      // The working key still works from there; another address is not held back. IPv6 counts by /64.
      await request(door).get('/v1/events').set('X-Forwarded-For', ip).set(bearer(tenant.keys.sk_live)).expect(200);
      await expectUnauthorized(await request(door).get('/v1/events').set('X-Forwarded-For', aClientIp()).set(bearer(madeUp())));
      const sameSlash64 = ip.replace(/::1$/, '::beef');
      expect((await request(door).get('/v1/events').set('X-Forwarded-For', sameSlash64).set(bearer(madeUp()))).status).to.equal(429);
    });
  });
});
