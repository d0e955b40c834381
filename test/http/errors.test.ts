// Contract §7: every failure answers {error, message, details?}, with a request id header.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { aTenant, bearer, type TestTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';

const deps = testDeps();
const app = createApp(deps);

function expectErrorShape(res: request.Response, status: number, code: string) {
  expect(res.status).to.equal(status);
  expect(res.type).to.equal('application/json');
  expect(res.body.error).to.equal(code);
  expect(res.body.message).to.be.a('string').and.not.empty;
  expect(Object.keys(res.body)).to.satisfy((keys: string[]) => keys.every((k) => ['error', 'message', 'details'].includes(k)));
  expect(res.headers['x-request-id']).to.be.a('string').and.not.empty;
}

describe('error responses', () => {
  let tenant: TestTenant;
  before(async () => {
    tenant = await aTenant(deps);
  });

  it('answers an unknown route with a JSON 404 not_found', async () => {
    expectErrorShape(await request(app).get('/v1/nothing-here'), 404, 'not_found');
    expectErrorShape(await request(app).post('/elsewhere').send({}), 404, 'not_found');
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await request(app)
      .post('/v1/device')
      .set(bearer(tenant.keys.pk_test))
      .set('Content-Type', 'application/json')
      .send('{"components": {');
    expectErrorShape(res, 400, 'invalid_request');
    expect(res.body.details.issues[0].message).to.match(/JSON/);
  });

  it('answers a body that is not application/json with 400 invalid_request', async () => {
    const res = await request(app)
      .post('/v1/device')
      .set(bearer(tenant.keys.pk_test))
      .set('Content-Type', 'text/plain')
      .send('components=1');
    expectErrorShape(res, 400, 'invalid_request');
    expect(res.body.details.issues[0].message).to.match(/Content-Type/);
  });

  // POST /v1/device has its own, larger cap (test/devices/device-api.test.ts).
  it('answers a body over 64 KiB with 400 invalid_request', async () => {
    const big = { subject: { kind: 'email', value: 'ada@example.org' }, outcome: 'chargeback', note: 'x'.repeat(70 * 1024) };
    const res = await request(app).post('/v1/feedback').set(bearer(tenant.keys.sk_test)).send(big);
    expectErrorShape(res, 400, 'invalid_request');
    expect(res.body.message).to.match(/65536 byte limit/);
  });

  it('lists every failed field of an invalid body in details.issues', async () => {
    const res = await request(app)
      .post('/v1/device')
      .set(bearer(tenant.keys.pk_test))
      .send({ components: { ['k'.repeat(65)]: 1 }, extra: true });
    expectErrorShape(res, 400, 'invalid_request');
    const paths = res.body.details.issues.map((i: { path: string }) => i.path);
    expect(paths).to.include('/extra');
    expect(paths.some((p: string) => p.startsWith('/components'))).to.equal(true);
  });

  it('echoes a sane inbound X-Request-Id and replaces an unsafe one', async () => {
    const echoed = await request(app).get('/v1/nothing').set('X-Request-Id', 'trace-abc.123');
    expect(echoed.headers['x-request-id']).to.equal('trace-abc.123');
    const replaced = await request(app).get('/v1/nothing').set('X-Request-Id', 'bad id with spaces');
    expect(replaced.headers['x-request-id']).to.match(/^req_[0-9a-f]{32}$/);
  });

  it('answers an unexpected fault with 500 internal and a fixed message that leaks nothing', async () => {
    const broken = createApp({
      ...deps,
      db: {
        ...deps.db,
        query: async () => {
          throw new Error('secret internals: relation "api_keys" exploded');
        },
      } as unknown as typeof deps.db,
    });
    const res = await request(broken).get('/v1/events/evt_1').set(bearer(tenant.keys.sk_test));
    expectErrorShape(res, 500, 'internal');
    expect(JSON.stringify(res.body)).not.to.match(/secret internals|api_keys|at /);
  });
});
