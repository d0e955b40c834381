// The console's door, over HTTP against the real stores: the one-time link, passwords, the
// session cookie and its idle end, sign-out, CSRF and same-origin checks, the sign-in limits,
// API keys refused on /console and cookies on /v1, and what each role may do.
import { expect } from 'chai';
import request from 'supertest';
import { createApp, type App } from '../../src/app.js';
import { redisReady } from '../../src/redis/redis-ready.js';
import type { Deps } from '../../src/deps.js';
import { addAnalyst } from '../../src/console/auth/manage-analysts.js';
import { aClientIp, aTenant, bearer, type TestTenant } from '../support/fixtures.js';
import { anAnalyst, cookieOf, PASSWORD, tokenOf } from '../support/console-session.js';
import { testDeps } from '../support/test-deps.js';

describe('console sign-in and sessions', function () {
  this.timeout(30_000);
  let clockNow = Date.now();
  const clock = { now: () => new Date(clockNow) };
  let deps: Deps;
  let app: App;
  let tenant: TestTenant;

  before(async () => {
    deps = testDeps({ CONSOLE_IDLE_MINUTES: '30' }, { clock });
    app = createApp(deps);
    tenant = await aTenant(deps);
  });
  beforeEach(() => {
    clockNow = Date.now();
  });

  const newAccount = async (role: 'analyst' | 'admin' = 'analyst') => {
    const email = `a-${Math.random().toString(36).slice(2, 10)}@example.org`;
    return { email, link: await addAnalyst(deps, { tenantId: tenant.tenantId, email, role }) };
  };

  it('signs in through the one-time link, which sets the password and works once', async () => {
    const { email, link } = await newAccount();
    expect(link.signInUrl).to.match(/^http:\/\/localhost:\d+\/console\/welcome#token=[\w-]{43}$/);
    const res = await request(app)
      .post('/console/api/welcome')
      .set('X-Forwarded-For', aClientIp())
      .send({ token: tokenOf(link.signInUrl), password: PASSWORD })
      .expect(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).to.match(/doorman_console=[\w-]+; Path=\/console; HttpOnly; SameSite=Strict/);
    expect(setCookie).not.to.match(/Secure/);
    const me = await request(app).get('/console/api/me').set('Cookie', cookieOf(res)).expect(200);
    expect(me.body).to.include({ email, role: 'analyst', tenant_id: tenant.tenantId, mode: 'test' });
    const again = await request(app)
      .post('/console/api/welcome')
      .set('X-Forwarded-For', aClientIp())
      .send({ token: tokenOf(link.signInUrl), password: 'another long password' })
      .expect(401);
    expect(again.body.error).to.equal('unauthorized');
    await request(app).post('/console/api/sign-in').set('X-Forwarded-For', aClientIp()).send({ email, password: PASSWORD }).expect(200);
    await request(app)
      .post('/console/api/sign-in')
      .set('X-Forwarded-For', aClientIp())
      .send({ email: email.toUpperCase(), password: 'wrong password!!' })
      .expect(401);
  });

  it('refuses an expired link, a short password, and an unknown address like a wrong password', async () => {
    const { link } = await newAccount();
    const short = await request(app)
      .post('/console/api/welcome')
      .set('X-Forwarded-For', aClientIp())
      .send({ token: tokenOf(link.signInUrl), password: 'short' })
      .expect(400);
    expect(short.body.details.issues[0].path).to.equal('/password');
    clockNow += 24 * 3_600_000 + 1000;
    await request(app)
      .post('/console/api/welcome')
      .set('X-Forwarded-For', aClientIp())
      .send({ token: tokenOf(link.signInUrl), password: PASSWORD })
      .expect(401);
    const unknown = await request(app)
      .post('/console/api/sign-in')
      .set('X-Forwarded-For', aClientIp())
      .send({ email: 'nobody@example.org', password: PASSWORD })
      .expect(401);
    expect(unknown.body.message).to.equal('That email and password do not match an analyst account.');
  });

  it('marks the cookie Secure when the console is served over HTTPS', async () => {
    const secureDeps = testDeps({ PUBLIC_URL: 'https://doorman.example.com' });
    const secureTenant = await aTenant(secureDeps);
    const link = await addAnalyst(secureDeps, { tenantId: secureTenant.tenantId, email: `s-${Date.now()}@example.org`, role: 'analyst' });
    expect(link.signInUrl).to.match(/^https:\/\/doorman\.example\.com\/console\/welcome#token=/);
    // Its own client address: the per-IP sign-in limit is shared by every test of the run.
    const res = await request(createApp(secureDeps))
      .post('/console/api/welcome')
      .set('X-Forwarded-For', aClientIp())
      .send({ token: tokenOf(link.signInUrl), password: PASSWORD })
      .expect(200);
    expect(String(res.headers['set-cookie'])).to.match(/; Secure/);
  });

  it('ends a session after the idle time and at sign-out', async () => {
    const a = await anAnalyst(deps, app, tenant.tenantId);
    clockNow += 29 * 60_000;
    await a.get('/me').expect(200);
    clockNow += 29 * 60_000;
    await a.get('/me').expect(200);
    clockNow += 31 * 60_000;
    await a.get('/me').expect(401);
    clockNow = Date.now();
    const b = await anAnalyst(deps, app, tenant.tenantId);
    await b.post('/sign-out').expect(200);
    await b.get('/me').expect(401);
  });

  it('ends the sessions of a removed analyst at once', async () => {
    const { removeAnalyst } = await import('../../src/console/auth/manage-analysts.js');
    const a = await anAnalyst(deps, app, tenant.tenantId);
    await removeAnalyst(deps, { tenantId: tenant.tenantId, email: a.email });
    await a.get('/me').expect(401);
  });

  it('refuses a state-changing request without the CSRF token, from another origin or another site', async () => {
    const a = await anAnalyst(deps, app, tenant.tenantId);
    const noToken = await request(app).post('/console/api/mode').set('Cookie', a.cookie).send({ mode: 'live' }).expect(403);
    expect(noToken.body).to.include({ error: 'forbidden' });
    await request(app)
      .post('/console/api/mode')
      .set('Cookie', a.cookie)
      .set('X-CSRF-Token', 'x'.repeat(a.csrf.length))
      .send({ mode: 'live' })
      .expect(403);
    await a.post('/mode', { mode: 'live' }).set('Origin', 'http://127.0.0.1:1').expect(403);
    await a.post('/mode', { mode: 'live' }).set('Sec-Fetch-Site', 'same-site').expect(403);
    // A form post (urlencoded) is refused even with the token: bodies are JSON only.
    await request(app)
      .post('/console/api/mode')
      .set('Cookie', a.cookie)
      .set('X-CSRF-Token', a.csrf)
      .type('form')
      .send('mode=live')
      .expect(400);
    expect((await a.get('/me')).body.mode).to.equal('test');
    await a.post('/mode', { mode: 'live' }).set('Sec-Fetch-Site', 'same-origin').expect(200);
    expect((await a.get('/me')).body.mode).to.equal('live');
  });

  it('takes no API key on /console, and /v1 takes no session cookie', async () => {
    const a = await anAnalyst(deps, app, tenant.tenantId);
    const withKey = await request(app).get('/console/api/me').set(bearer(tenant.keys.sk_test)).expect(401);
    expect(withKey.body.message).to.match(/takes no API keys/);
    await request(app).get('/console/api/me').set(bearer(tenant.keys.sk_test)).set('Cookie', a.cookie).expect(401);
    await request(app).get('/v1/events').set('Cookie', a.cookie).expect(401);
    await request(app)
      .post('/v1/feedback')
      .set('Cookie', a.cookie)
      .send({ subject: { kind: 'email', value: 'x@example.org' }, outcome: 'chargeback' })
      .expect(401);
  });

  it('limits sign-in attempts per account, also with the right password, and clears the count on success', async () => {
    const limited = testDeps({ CONSOLE_SIGN_IN_PER_ACCOUNT: '3', TRUST_PROXY: 'loopback' });
    const limitedApp = createApp(limited);
    const t = await aTenant(limited);
    const a = await anAnalyst(limited, limitedApp, t.tenantId);
    const attempt = (password: string, ip: string) =>
      request(limitedApp).post('/console/api/sign-in').set('X-Forwarded-For', ip).send({ email: a.email, password });
    // A success clears the count: two failures, a success, two failures still leave one try.
    for (const ip of ['198.18.0.1', '198.18.0.2']) expect((await attempt('wrong password!!', ip)).status).to.equal(401);
    expect((await attempt(PASSWORD, '198.18.0.3')).status).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await attempt('wrong password!!', `198.18.1.${i}`)).status).to.equal(401);
    const blocked = await attempt(PASSWORD, '198.18.2.1');
    expect(blocked.status).to.equal(429);
    expect(blocked.body.error).to.equal('rate_limited');
    expect(Number(blocked.headers['retry-after'])).to.be.within(1, 900);
  });

  it('limits sign-in attempts per client IP across accounts', async () => {
    const limited = testDeps({ CONSOLE_SIGN_IN_PER_IP: '4', TRUST_PROXY: 'loopback' });
    const limitedApp = createApp(limited);
    // A fresh connection: until it is ready, the in-memory stand-in would count instead.
    await redisReady(limited.redis, 5000);
    const ip = `198.19.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (
          await request(limitedApp)
            .post('/console/api/sign-in')
            .set('X-Forwarded-For', ip)
            .send({ email: `guess${i}@example.org`, password: 'guessing password' })
        ).status,
      );
    }
    expect(statuses).to.deep.equal([401, 401, 401, 401, 429, 429]);
    expect(
      (
        await request(limitedApp)
          .post('/console/api/sign-in')
          .set('X-Forwarded-For', '198.19.255.1')
          .send({ email: 'guess@example.org', password: 'guessing password' })
      ).status,
    ).to.equal(401);
  });
});

describe('console API permissions', function () {
  this.timeout(30_000);
  let deps: Deps;
  let app: App;
  let tenant: TestTenant;

  before(async () => {
    deps = testDeps();
    app = createApp(deps);
    tenant = await aTenant(deps);
  });

  const ROUTES: [string, string][] = [
    ['get', '/me'],
    ['post', '/mode'],
    ['post', '/sign-out'],
    ['get', '/reviews'],
    ['post', '/reviews/evt_x/resolve'],
    ['get', '/events'],
    ['get', '/events/evt_x'],
    ['post', '/feedback'],
    ['get', '/events/evt_x/cluster'],
    ['get', '/accounts/u/cluster'],
    ['get', '/clusters/clu_x'],
    ['get', '/queries'],
    ['post', '/queries/hubs/run'],
    ['get', '/queries/hubs/csv'],
    ['get', '/overview'],
    ['post', '/deliveries/dlv_x/redeliver'],
    ['get', '/audit'],
  ];

  it('answers 401 on every API route without a session', async () => {
    for (const [method, path] of ROUTES) {
      const res = await (request(app) as unknown as Record<string, (p: string) => request.Test>)[method]!(`/console/api${path}`);
      expect(res.status, `${method} ${path}`).to.equal(401);
      expect(res.body.error).to.equal('unauthorized');
    }
  });

  it('lets an analyst work but not read the audit log or redeliver; an admin may do both', async () => {
    const analyst = await anAnalyst(deps, app, tenant.tenantId, 'analyst');
    const admin = await anAnalyst(deps, app, tenant.tenantId, 'admin');
    for (const path of ['/reviews', '/events', '/queries', '/overview']) {
      await analyst.get(path).expect(200);
      await admin.get(path).expect(200);
    }
    expect((await analyst.get('/audit').expect(403)).body.error).to.equal('forbidden');
    await analyst.post('/deliveries/dlv_x/redeliver').expect(403);
    const log = await admin.get('/audit').expect(200);
    expect(log.body.entries.map((e: { action: string; analyst: string }) => `${e.action} ${e.analyst}`)).to.include.members([
      `sign_in.link ${analyst.email}`,
      `sign_in.link ${admin.email}`,
    ]);
    await admin.post('/deliveries/dlv_x/redeliver').expect(404);
  });

  it('serves pages with a strict Content-Security-Policy and no inline script', async () => {
    const page = await request(app).get('/console/queue').expect(200);
    const csp = String(page.headers['content-security-policy']);
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'"])
      expect(csp).to.contain(directive);
    expect(csp).not.to.match(/unsafe-inline|unsafe-eval|https?:/);
    expect(page.text).to.match(/<script type="module" src="\/console\/assets\/console\.js\?v=[0-9a-f]{12}"><\/script>/);
    expect(page.text.match(/<script/g)).to.have.length(1);
    const js = await request(app).get('/console/assets/console.js').expect(200);
    expect(js.headers['content-type']).to.match(/javascript/);
    await request(app).get('/console/assets/nothing.js').expect(404);
  });
});
