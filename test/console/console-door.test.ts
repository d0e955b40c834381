// The console's door under pressure: a forged one-time link is refused before any
// password is hashed, and the link's use is limited per IP and per link; the per-account limit
// holds when the attempts come in parallel (points taken before the password is checked); an
// IPv6 client is limited by its /64; setting a password through a link ends the account's other
// sessions, and a new link voids the earlier ones.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { addAnalyst, newSignInLink } from '../../src/console/auth/manage-analysts.js';
import { argon2Passwords, type Passwords } from '../../src/console/auth/passwords.js';
import { redisReady } from '../../src/redis/redis-ready.js';
import { anAnalyst, cookieOf, PASSWORD, tokenOf } from '../support/console-session.js';
import { aClientIp, aTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';

// The real argon2id, counted.
function countedPasswords(): Passwords & { hashes: number; verifications: number } {
  const counted = {
    hashes: 0,
    verifications: 0,
    hash(password: string) {
      counted.hashes += 1;
      return argon2Passwords.hash(password);
    },
    verify(passwordHash: string, password: string) {
      counted.verifications += 1;
      return argon2Passwords.verify(passwordHash, password);
    },
  };
  return counted;
}

describe('the console door', function () {
  this.timeout(120_000);

  it('refuses 120 forged links without hashing a password, and limits them per IP', async () => {
    const passwords = countedPasswords();
    const deps = testDeps({ CONSOLE_SIGN_IN_PER_IP: '30' }, { passwords });
    await redisReady(deps.redis, 5000);
    const app = createApp(deps);
    const ip = aClientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) {
      const res = await request(app)
        .post('/console/api/welcome')
        .set('X-Forwarded-For', ip)
        .send({ token: `forged-${i}-${'x'.repeat(30)}`, password: 'a long enough password' });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 401)).to.have.length(30);
    expect(statuses.filter((s) => s === 429)).to.have.length(90);
    expect(passwords.hashes).to.equal(0);
  });

  it('limits the uses of one real link: twenty at once hash at most five passwords, and one wins', async () => {
    const passwords = countedPasswords();
    const deps = testDeps({}, { passwords });
    await redisReady(deps.redis, 5000);
    const app = createApp(deps);
    const tenant = await aTenant(deps);
    const link = await addAnalyst(deps, { tenantId: tenant.tenantId, email: `door-${Date.now()}@example.org`, role: 'analyst' });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(app)
          .post('/console/api/welcome')
          .set('X-Forwarded-For', aClientIp())
          .send({ token: tokenOf(link.signInUrl), password: PASSWORD }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(
      statuses.every((s) => [200, 401, 429].includes(s)),
      statuses.join(','),
    ).to.equal(true);
    expect(passwords.hashes).to.be.within(1, 5);
  });

  it('checks at most five of 200 parallel sign-ins for one account; the rest are 429', async () => {
    const passwords = countedPasswords();
    const deps = testDeps({ CONSOLE_SIGN_IN_PER_ACCOUNT: '5', CONSOLE_SIGN_IN_PER_IP: '1000' }, { passwords });
    await redisReady(deps.redis, 5000);
    const app = createApp(deps);
    const tenant = await aTenant(deps);
    const analyst = await anAnalyst(deps, app, tenant.tenantId);
    const before = passwords.verifications;
    const results = await Promise.all(
      Array.from({ length: 200 }, () =>
        request(app)
          .post('/console/api/sign-in')
          .set('X-Forwarded-For', aClientIp())
          .send({ email: analyst.email, password: 'not the password at all' }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).to.have.length(5);
    expect(statuses.filter((s) => s === 429)).to.have.length(195);
    expect(passwords.verifications - before).to.equal(5);
  });

  it('counts an IPv6 client by its /64', async () => {
    const deps = testDeps({ CONSOLE_SIGN_IN_PER_IP: '4' });
    await redisReady(deps.redis, 5000);
    const app = createApp(deps);
    const prefix = aClientIp().replace(/::1$/, '');
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++) {
      const res = await request(app)
        .post('/console/api/sign-in')
        .set('X-Forwarded-For', `${prefix}:${i.toString(16)}:0:0:${i}`)
        .send({ email: `guess${i}@example.org`, password: 'guessing password' });
      statuses.push(res.status);
    }
    expect(statuses).to.deep.equal([401, 401, 401, 401, 429, 429]);
  });

  it("ends the account's other sessions when a link sets the password, and a new link voids the earlier ones", async () => {
    const deps = testDeps();
    const app = createApp(deps);
    const tenant = await aTenant(deps);
    const analyst = await anAnalyst(deps, app, tenant.tenantId);
    await request(app).get('/console/api/me').set('Cookie', analyst.cookie).expect(200);
    const first = await newSignInLink(deps, { tenantId: tenant.tenantId, email: analyst.email });
    const second = await newSignInLink(deps, { tenantId: tenant.tenantId, email: analyst.email });
    const welcome = (token: string) =>
      request(app).post('/console/api/welcome').set('X-Forwarded-For', aClientIp()).send({ token, password: 'a brand new password' });
    expect((await welcome(tokenOf(first.signInUrl))).status, 'the earlier link').to.equal(401);
    const used = await welcome(tokenOf(second.signInUrl));
    expect(used.status).to.equal(200);
    // The session from before the new password has ended; the new one works.
    await request(app).get('/console/api/me').set('Cookie', analyst.cookie).expect(401);
    await request(app).get('/console/api/me').set('Cookie', cookieOf(used)).expect(200);
  });
});
