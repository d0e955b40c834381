// `doorman analyst add|link|remove|list`, run as an operator runs them: the --json shapes of
// the README's ops CLI table, a link that signs in once, one account per address, removal.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { doorman } from '../support/cli-runner.js';
import { aClientIp, aTenant } from '../support/fixtures.js';
import { PASSWORD, tokenOf } from '../support/console-session.js';
import { testDeps } from '../support/test-deps.js';

describe('doorman analyst commands', function () {
  this.timeout(120_000);
  const deps = testDeps();
  const app = createApp(deps);

  it('adds an analyst with a one-time sign-in link, lists, re-links and removes them', async () => {
    const tenant = await aTenant(deps);
    const email = `ops-${randomUUID().slice(0, 8)}@example.org`;
    const added = await doorman(['--json', 'analyst', 'add', '--tenant', tenant.tenantId, '--email', email, '--role', 'admin'], {
      PUBLIC_URL: 'https://doorman.example.com/',
    });
    expect(added.code, added.stderr).to.equal(0);
    const body = JSON.parse(added.stdout);
    expect(Object.keys(body)).to.deep.equal(['analyst_id', 'sign_in_url', 'expires_at']);
    expect(body.analyst_id).to.match(/^ana_[0-9a-f]{32}$/);
    expect(body.sign_in_url).to.match(/^https:\/\/doorman\.example\.com\/console\/welcome#token=[\w-]{43}$/);
    expect(Date.parse(body.expires_at) - Date.now()).to.be.within(23.9 * 3_600_000, 24 * 3_600_000);

    const twice = await doorman([
      '--json',
      'analyst',
      'add',
      '--tenant',
      tenant.tenantId,
      '--email',
      email.toUpperCase(),
      '--role',
      'analyst',
    ]);
    expect(twice.code).to.not.equal(0);
    expect(twice.stdout).to.equal('');
    expect(twice.stderr).to.match(/already has an analyst account/);

    const listed = JSON.parse((await doorman(['--json', 'analyst', 'list', '--tenant', tenant.tenantId])).stdout);
    expect(listed.analysts).to.have.length(1);
    expect(listed.analysts[0]).to.include({
      analyst_id: body.analyst_id,
      email,
      role: 'admin',
      mode: 'test',
      password_set: false,
      last_seen_at: null,
    });

    await request(app)
      .post('/console/api/welcome')
      .set('X-Forwarded-For', aClientIp())
      .send({ token: tokenOf(body.sign_in_url), password: PASSWORD })
      .expect(200);
    const relinked = JSON.parse((await doorman(['--json', 'analyst', 'link', '--tenant', tenant.tenantId, '--email', email])).stdout);
    expect(relinked.analyst_id).to.equal(body.analyst_id);
    await request(app)
      .post('/console/api/welcome')
      .set('X-Forwarded-For', aClientIp())
      .send({ token: tokenOf(relinked.sign_in_url), password: 'a new long password' })
      .expect(200);
    await request(app)
      .post('/console/api/sign-in')
      .set('X-Forwarded-For', aClientIp())
      .send({ email, password: 'a new long password' })
      .expect(200);

    const human = await doorman(['analyst', 'list', '--tenant', tenant.tenantId]);
    expect(human.stdout).to.contain(email);
    const removed = await doorman(['--json', 'analyst', 'remove', '--tenant', tenant.tenantId, '--email', email]);
    expect(JSON.parse(removed.stdout)).to.deep.equal({ ok: true });
    await request(app)
      .post('/console/api/sign-in')
      .set('X-Forwarded-For', aClientIp())
      .send({ email, password: 'a new long password' })
      .expect(401);
    const again = await doorman(['--json', 'analyst', 'remove', '--tenant', tenant.tenantId, '--email', email]);
    expect(again.code).to.not.equal(0);
    expect(again.stderr).to.match(/No analyst/);
  });

  it('refuses an unknown tenant, a bad role and an address that is not one', async () => {
    expect(
      (await doorman(['--json', 'analyst', 'add', '--tenant', 'ten_nope', '--email', 'x@example.org', '--role', 'analyst'])).stderr,
    ).to.match(/No tenant ten_nope/);
    const badRole = await doorman(['--json', 'analyst', 'add', '--tenant', 'ten_nope', '--email', 'x@example.org', '--role', 'root']);
    expect(badRole.code).to.not.equal(0);
    expect(badRole.stderr).to.match(/Allowed choices are analyst, admin/);
    const tenant = await aTenant(deps);
    expect(
      (await doorman(['--json', 'analyst', 'add', '--tenant', tenant.tenantId, '--email', 'not-an-address', '--role', 'analyst'])).stderr,
    ).to.match(/email must be an email address/);
  });
});
