// The auth matrix of contract §5: every 401 cause, every key kind on every route.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { hashKey } from '../../src/tenants/api-key.js';
import { revokeApiKey, createKey } from '../../src/tenants/manage-tenants.js';
import { aTenant, bearer, type TestTenant } from '../support/fixtures.js';
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
});
