// A new analyst's one-time link from a client address that others have spent (a NAT, a proxy):
// a link of ours gets in and spends nothing of the address; made-up tokens, used and expired links
// from that address still get 429, a spent address's made-up tokens without a lookup; one link is
// looked up at most five times a quarter-hour; an untagged link counts against the address as
// before, and a link tagged under a rotated-out key still counts as ours; the CLI makes no link
// without the key.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type pg from 'pg';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import type { Deps } from '../../src/deps.js';
import { createPool } from '../../src/db/create-pool.js';
import { addAnalyst } from '../../src/console/auth/manage-analysts.js';
import { linkTokens } from '../../src/console/auth/link-tokens.js';
import { argon2Passwords } from '../../src/console/auth/passwords.js';
import { redisReady } from '../../src/redis/redis-ready.js';
import { cookieOf, PASSWORD, tokenOf } from '../support/console-session.js';
import { doorman } from '../support/cli-runner.js';
import { aClientIp, aTenant, type TestTenant } from '../support/fixtures.js';
import { testConfig, testDeps } from '../support/test-deps.js';

const ENV = { CONSOLE_SIGN_IN_PER_IP: '4' };

// The real pool, its lookups of sign-in links counted.
function countedPool(pool: pg.Pool): { pool: pg.Pool; lookups: number } {
  const counted = { pool, lookups: 0 };
  counted.pool = new Proxy(pool, {
    get(target, prop) {
      if (prop === 'query') {
        return (...args: unknown[]) => {
          if (/FROM analyst_sign_in_links/.test(String(args[0]))) counted.lookups += 1;
          return (target.query as (...a: unknown[]) => unknown)(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return counted;
}

describe('the welcome link behind a spent address', function () {
  this.timeout(60_000);
  let clockNow = Date.now();
  const clock = { now: () => new Date(clockNow) };
  const passwords = {
    hashes: 0,
    hash(password: string) {
      passwords.hashes += 1;
      return argon2Passwords.hash(password);
    },
    verify: (hash: string, password: string) => argon2Passwords.verify(hash, password),
  };
  let counted: ReturnType<typeof countedPool>;
  let deps: Deps;
  let app: ReturnType<typeof createApp>;
  let tenant: TestTenant;

  before(async () => {
    counted = countedPool(createPool(testConfig(ENV)));
    deps = testDeps(ENV, { db: counted.pool, clock, passwords });
    await redisReady(deps.redis, 5000);
    app = createApp(deps);
    tenant = await aTenant(deps);
  });
  beforeEach(() => {
    clockNow = Date.now();
  });

  const newLink = async (on: Pick<Deps, 'db' | 'clock' | 'config'> = deps) =>
    tokenOf(
      (await addAnalyst(on, { tenantId: tenant.tenantId, email: `w-${randomBytes(4).toString('hex')}@example.org`, role: 'analyst' }))
        .signInUrl,
    );
  const madeUp = () => randomBytes(32).toString('base64url');
  const welcome = (ip: string, token: string, to = app) =>
    request(to).post('/console/api/welcome').set('X-Forwarded-For', ip).send({ token, password: PASSWORD });
  const signIn = (ip: string, email: string, password: string) =>
    request(app).post('/console/api/sign-in').set('X-Forwarded-For', ip).send({ email, password });

  // Others behind one address spend its four points: two wrong passwords, two made-up links.
  async function spentAddress(): Promise<string> {
    const ip = aClientIp();
    for (let i = 0; i < 2; i++)
      expect((await signIn(ip, `x-${randomBytes(4).toString('hex')}@example.org`, 'a wrong password')).status).to.equal(401);
    expect((await welcome(ip, madeUp())).status).to.equal(401);
    expect((await welcome(ip, madeUp())).status).to.equal(401);
    const refused = await welcome(ip, madeUp());
    expect(refused.status).to.equal(429);
    expect(refused.body.error).to.equal('rate_limited');
    return ip;
  }

  it('lets new analysts in through their links from an address others have spent, which stays spent', async () => {
    const ip = await spentAddress();
    const token = await newLink();
    const res = await welcome(ip, token);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const me = await request(app).get('/console/api/me').set('Cookie', cookieOf(res)).expect(200);
    expect(me.body).to.include({ tenant_id: tenant.tenantId, role: 'analyst' });
    // A second new analyst in the same office: the first one's use spent nothing of theirs.
    expect((await welcome(ip, await newLink())).status).to.equal(200);
    // Guessing from that address is still limited: made-up links and passwords, even the right one.
    expect((await welcome(ip, madeUp())).status).to.equal(429);
    expect((await signIn(ip, me.body.email, PASSWORD)).status).to.equal(429);
    expect((await signIn(aClientIp(), me.body.email, PASSWORD)).status).to.equal(200);
  });

  it('answers made-up tokens from a spent address 429 without looking them up; a tag alone opens nothing', async () => {
    const ip = await spentAddress();
    const before = counted.lookups;
    for (let i = 0; i < 20; i++) expect((await welcome(ip, madeUp())).status).to.equal(429);
    expect(counted.lookups - before, 'lookups of made-up tokens').to.equal(0);
    // A token with our tag that was never a link: looked up, and answered as a made-up one.
    const tagged = linkTokens(deps.config.secretsKeys);
    const refused = await welcome(ip, tagged.issue());
    expect(refused.status).to.equal(429);
    expect(refused.body.error).to.equal('rate_limited');
    // From an address with points left, each one spends a point, as a made-up token does.
    const fresh = aClientIp();
    for (let i = 0; i < 4; i++) expect((await welcome(fresh, tagged.issue())).status).to.equal(401);
    expect((await welcome(fresh, tagged.issue())).status).to.equal(429);
    expect((await welcome(fresh, await newLink())).status, 'a real link from there').to.equal(200);
  });

  it('answers a used or an expired link like a made-up token: 401 while the address has points, then 429', async () => {
    const spent = await spentAddress();
    const used = await newLink();
    expect((await welcome(aClientIp(), used)).status).to.equal(200);
    expect((await welcome(aClientIp(), used)).status).to.equal(401);
    expect((await welcome(spent, used)).status).to.equal(429);

    const expired = await newLink();
    clockNow += 24 * 3_600_000 + 1000;
    expect((await welcome(spent, expired)).status).to.equal(429);
    // Each use of it spends a point of a fresh address: three, and that address's fourth is gone.
    const fresh = aClientIp();
    for (let i = 0; i < 3; i++) expect((await welcome(fresh, expired)).status).to.equal(401);
    expect((await welcome(fresh, madeUp())).status).to.equal(401);
    expect((await welcome(fresh, madeUp())).status).to.equal(429);
  });

  it('looks one link up at most five times a quarter-hour and hashes at most five passwords for it', async () => {
    const ip = await spentAddress();
    const token = await newLink();
    const [lookups, hashes] = [counted.lookups, passwords.hashes];
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => welcome(ip, token)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => s === 429).length, statuses.join(',')).to.be.at.least(15);
    expect(
      statuses.every((s) => [200, 401, 429].includes(s)),
      statuses.join(','),
    ).to.equal(true);
    expect(counted.lookups - lookups).to.be.within(1, 5);
    expect(passwords.hashes - hashes).to.be.within(1, 5);
    // Spent for this link, from any address, without a lookup.
    const after = counted.lookups;
    for (let i = 0; i < 5; i++) expect((await welcome(aClientIp(), token)).status).to.equal(429);
    expect(counted.lookups).to.equal(after);
  });

  it('counts an untagged link against its address first; a link tagged under a rotated-out key is still ours', async () => {
    const ip = await spentAddress();
    const untagged = await newLink({ ...deps, config: { ...deps.config, secretsKeys: [] } });
    expect(linkTokens(deps.config.secretsKeys).issuedHere(untagged)).to.equal(false);
    expect((await welcome(ip, untagged)).status).to.equal(429);
    expect((await welcome(aClientIp(), untagged)).status).to.equal(200);

    // SECRETS_KEY rotated: the old key in SECRETS_PREVIOUS_KEYS still tags the day's links.
    const rotated = createApp({ ...deps, config: { ...deps.config, secretsKeys: [randomBytes(32), ...deps.config.secretsKeys] } });
    expect((await welcome(ip, await newLink(), rotated)).status).to.equal(200);
    const dropped = createApp({ ...deps, config: { ...deps.config, secretsKeys: [randomBytes(32)] } });
    expect((await welcome(ip, await newLink(), dropped)).status, 'its key dropped: a guess').to.equal(429);
  });

  it('makes no link from the CLI without the master key to tag it with', async () => {
    for (const command of ['add', 'link']) {
      const args = ['--json', 'analyst', command, '--tenant', tenant.tenantId, '--email', 'nobody@example.org'];
      const run = await doorman(command === 'add' ? [...args, '--role', 'analyst'] : args, { SECRETS_KEY: '' });
      expect(run.code, command).to.not.equal(0);
      expect(run.stdout).to.equal('');
      expect(run.stderr).to.match(/SECRETS_KEY is required/);
    }
    const analysts = await doorman(['--json', 'analyst', 'list', '--tenant', tenant.tenantId]);
    expect(JSON.parse(analysts.stdout).analysts.map((a: { email: string }) => a.email)).not.to.include('nobody@example.org');
  });
});
