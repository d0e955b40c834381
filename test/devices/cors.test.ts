// Contract §4.6: POST /v1/device is the only endpoint with CORS: its preflight answers any
// origin for POST with Authorization and Content-Type, and no other route sends
// Access-Control-Allow-Origin. The static SDK file is the one documented exception: a module
// script from another origin is fetched in CORS mode, so it must allow any origin to read it.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { aTenant, bearer, type TestTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { recorded } from '../support/device-tokens.js';

const deps = testDeps({ DEMO_PAGES: 'true' });
const app = createApp(deps);
const ORIGINS = ['https://shop.example', 'http://localhost:3000', 'null'];

describe('CORS', () => {
  let tenant: TestTenant;
  before(async () => {
    tenant = await aTenant(deps);
  });

  it('answers the preflight of POST /v1/device for any origin, with Authorization and Content-Type, unmetered', async () => {
    for (const origin of ORIGINS) {
      const res = await request(app)
        .options('/v1/device')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(res.status).to.equal(204);
      expect(res.headers['access-control-allow-origin']).to.equal(origin);
      expect(res.headers['access-control-allow-methods']).to.equal('POST');
      expect(res.headers['access-control-allow-headers']!.toLowerCase().split(',')).to.have.members(['authorization', 'content-type']);
      expect(res.headers['access-control-allow-credentials']).to.equal(undefined);
      expect(res.headers['x-ratelimit-limit']).to.equal(undefined);
    }
  });

  it('lets the page read the answer of POST /v1/device, an error included', async () => {
    const ok = await request(app)
      .post('/v1/device')
      .set('Origin', ORIGINS[0]!)
      .set(bearer(tenant.keys.pk_test))
      .send(recorded('desktop-load-1'));
    expect(ok.status).to.equal(200);
    expect(ok.headers['access-control-allow-origin']).to.equal(ORIGINS[0]);
    expect(ok.headers['access-control-expose-headers']).to.contain('x-ratelimit-remaining');
    const refused = await request(app)
      .post('/v1/device')
      .set('Origin', ORIGINS[0]!)
      .set(bearer(tenant.keys.sk_test))
      .send(recorded('desktop-load-1'));
    expect(refused.status).to.equal(401);
    expect(refused.headers['access-control-allow-origin']).to.equal(ORIGINS[0]);
  });

  it('sends Access-Control-Allow-Origin on no other route', async () => {
    const origin = ORIGINS[0]!;
    const sk = bearer(tenant.keys.sk_test);
    const routes = [
      'GET /health',
      'GET /v1/openapi.json',
      'POST /v1/verdict',
      'GET /v1/events',
      'GET /v1/events/{id}',
      'PATCH /v1/events/{id}',
      'POST /v1/feedback',
      'GET /demo/device',
      'GET /v1/nothing',
      'OPTIONS /v1/verdict',
      'OPTIONS /v1/events',
    ];
    const answers = await Promise.all([
      request(app).get('/health').set('Origin', origin),
      request(app).get('/v1/openapi.json').set('Origin', origin),
      request(app).post('/v1/verdict').set('Origin', origin).set(sk).send({ event_type: 'login' }),
      request(app).get('/v1/events').set('Origin', origin).set(sk),
      request(app).get('/v1/events/evt_nothing').set('Origin', origin).set(sk),
      request(app).patch('/v1/events/evt_nothing').set('Origin', origin).set(sk).send({ external_user_id: 'u' }),
      request(app).post('/v1/feedback').set('Origin', origin).set(sk).send({}),
      request(app).get('/demo/device').set('Origin', origin),
      request(app).get('/v1/nothing').set('Origin', origin),
      request(app).options('/v1/verdict').set('Origin', origin).set('Access-Control-Request-Method', 'POST'),
      request(app).options('/v1/events').set('Origin', origin).set('Access-Control-Request-Method', 'GET'),
    ]);
    for (const [i, res] of answers.entries()) {
      const what = `${routes[i]} (${res.status})`;
      expect(res.status, what).to.be.within(200, 499);
      expect(res.headers['access-control-allow-origin'], what).to.equal(undefined);
    }
  });

  it('serves the SDK file to any origin (a cross-origin module script needs it), without credentials', async () => {
    for (const path of ['/sdk/doorman.js', '/sdk/v1/doorman.js']) {
      const res = await request(app).get(path).set('Origin', ORIGINS[0]!);
      expect(res.status).to.equal(200);
      expect(res.headers['access-control-allow-origin']).to.equal('*');
      expect(res.headers['access-control-allow-credentials']).to.equal(undefined);
    }
  });
});
