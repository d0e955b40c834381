// POST /v1/device (contract §2.8, §4.6): the token it returns, its caps (README "Device tokens"),
// and that raw components are never logged or stored.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { aTenant, bearer, type TestTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { deviceIdOf, issueToken, recorded, tokenClaims, tokenHeader } from '../support/device-tokens.js';
import { aSignup } from '../support/verdict-harness.js';

const deps = testDeps();
const app = createApp(deps);

describe('POST /v1/device', () => {
  let tenant: TestTenant;
  const post = (body: unknown) =>
    request(app)
      .post('/v1/device')
      .set(bearer(tenant.keys.pk_test))
      .send(body as object);
  before(async () => {
    tenant = await aTenant(deps);
  });

  it('returns a token that names its signing key and lives DEVICE_TOKEN_TTL_SECONDS', async () => {
    // The key ring refreshes itself in the background once it is a minute old, so a key another
    // test rotated in meanwhile may arrive between these lines: the token names the key that was
    // current just before it was issued or just after.
    const before = (await deps.secrets.deviceKeys.signingKey()).kid;
    const res = await post(recorded('desktop-load-1'));
    expect(res.status).to.equal(200);
    const { kid } = tokenHeader(res.body.device_token);
    const after = (await deps.secrets.deviceKeys.signingKey()).kid;
    expect([before, after]).to.include(kid);
    const claims = tokenClaims(res.body.device_token);
    expect(claims.exp - claims.iat).to.equal(900);
    expect(claims.aud).to.equal(`${tenant.tenantId}:test`);
    expect(new Date(res.body.expires_at).getTime()).to.equal(claims.exp * 1000);
  });

  it('takes up to 100 components and refuses more', async () => {
    const many = (n: number) => ({ components: Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, i])) });
    expect((await post(many(100))).status).to.equal(200);
    const res = await post(many(101));
    expect(res.status).to.equal(400);
    expect(res.body.details.issues).to.deep.include({ path: '/components', message: 'must NOT have more than 100 properties' });
  });

  it('takes a body up to 128 KiB (a FingerprintJS set is about 38 KB) and refuses a larger one', async () => {
    const set = recorded('desktop-load-1');
    const padded = (bytes: number) => ({ components: { ...set.components, padding: 'x'.repeat(bytes - JSON.stringify(set).length - 20) } });
    expect(JSON.stringify(padded(100 * 1024)).length).to.be.within(100 * 1024 - 100, 100 * 1024);
    expect((await post(padded(100 * 1024))).status).to.equal(200);
    const res = await post(padded(130 * 1024));
    expect(res.status).to.equal(400);
    expect(res.body.message).to.match(/131072 byte limit/);
  });

  it('refuses values nested deeper than 16 levels with a 400, however deep', async () => {
    // Sent as text: a client-side JSON encoder would overflow its own stack first.
    const nested = (levels: number) =>
      request(app)
        .post('/v1/device')
        .set(bearer(tenant.keys.pk_test))
        .set('Content-Type', 'application/json')
        .send(`{"components":{"canvas":${'['.repeat(levels)}1${']'.repeat(levels)}}}`);
    expect((await nested(16)).status).to.equal(200);
    const res = await nested(17);
    expect(res.status).to.equal(400);
    expect(res.body.details.issues).to.deep.equal([{ path: '/components/canvas', message: 'is nested deeper than 16 levels' }]);
    // Past the edge's limit for every body (32 levels) the edge answers first, as deep as it goes.
    const deep = await nested(50_000);
    expect(deep.status).to.equal(400);
    expect(deep.body.details.issues[0].message).to.match(/nests deeper than 32 levels/);
    expect(deep.body.details.issues[0].path).to.match(/^\/components\/canvas\//);
  });

  it('refuses a set in which nothing identifies a device (only what changes between visits)', async () => {
    const res = await post({
      components: { timezone: { value: 'Europe/Paris', duration: 1 }, languages: { value: [['fr']], duration: 0 } },
    });
    expect(res.status).to.equal(400);
    expect(res.body.details.issues).to.deep.equal([{ path: '/components', message: 'has no component that identifies a device' }]);
    expect((await post({ components: {} })).status).to.equal(400);
  });

  it('never logs or stores the raw components', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = createApp({ ...deps, logger: pino({ level: 'trace' }, sink) });
    const marker = `marker-${Date.now()}-raw-component`;
    const body = { components: { ...recorded('desktop-load-1').components, canvas: { value: marker, duration: 1 } } };
    const token = await issueToken(logged, tenant.keys.pk_test, body);
    await request(logged)
      .post('/v1/device')
      .set(bearer(tenant.keys.pk_test))
      .send({ components: { [marker]: { deep: [[[[[[[[[[[[[[[[[marker]]]]]]]]]]]]]]]]] } } });
    const verdict = await request(logged)
      .post('/v1/verdict')
      .set(bearer(tenant.keys.sk_test))
      .send(aSignup({ device_token: token }));
    expect(lines.length, 'the requests were logged').to.be.greaterThan(2);
    expect(lines.join('\n')).to.not.contain(marker);
    const { rows } = await deps.db.query<{ row: string }>('SELECT e::text AS row FROM events e WHERE tenant_id = $1 AND id = $2', [
      tenant.tenantId,
      verdict.body.id,
    ]);
    expect(rows[0]!.row).to.contain(deviceIdOf(token)).and.not.contain(marker);
  });
});
