// The ops CLI, run as a user runs it: `doorman <command> --json` prints one JSON document.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { testDeps, testEnv } from './support/test-deps.js';
import { bearer } from './support/fixtures.js';

const run = promisify(execFile);
const deps = testDeps();
const app = createApp(deps);

async function doorman(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run('node', ['bin/doorman.js', ...args], {
      env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', LOG_LEVEL: 'warn' },
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

describe('doorman CLI', function () {
  this.timeout(60_000);

  it('migrate --json prints {"ok":true} and can run again', async () => {
    for (let i = 0; i < 2; i++) {
      const { stdout, code } = await doorman('--json', 'migrate');
      expect(code).to.equal(0);
      expect(JSON.parse(stdout)).to.deep.equal({ ok: true });
    }
  });

  it('tenant create --json prints the tenant and four keys that work', async () => {
    const { stdout, code } = await doorman('--json', 'tenant', 'create', '--name', 'Acme');
    expect(code).to.equal(0);
    const out = JSON.parse(stdout);
    expect(Object.keys(out)).to.deep.equal(['tenant_id', 'keys']);
    expect(out.tenant_id).to.match(/^ten_[0-9a-f]{32}$/);
    expect(Object.keys(out.keys)).to.have.members(['sk_live', 'sk_test', 'pk_live', 'pk_test']);
    for (const [name, key] of Object.entries(out.keys as Record<string, string>)) {
      expect(key).to.match(new RegExp(`^${name}_[0-9A-Za-z]{32}$`));
    }
    expect((await request(app).get('/v1/events').set(bearer(out.keys.sk_live))).status).to.equal(200);
    expect((await request(app).get('/v1/events').set(bearer(out.keys.sk_test))).status).to.equal(200);
    const device = await request(app)
      .post('/v1/device')
      .set(bearer(out.keys.pk_live))
      .send({ components: { a: 1 } });
    expect(device.status).to.equal(200);
  });

  it('key create and key revoke: the new key works until it is revoked', async () => {
    const tenant = JSON.parse((await doorman('--json', 'tenant', 'create', '--name', 'Keys')).stdout);
    const created = await doorman('--json', 'key', 'create', '--tenant', tenant.tenant_id, '--kind', 'secret', '--mode', 'test');
    expect(created.code).to.equal(0);
    const { key } = JSON.parse(created.stdout);
    expect(key).to.match(/^sk_test_/);
    expect((await request(app).get('/v1/events').set(bearer(key))).status).to.equal(200);

    const revoked = await doorman('--json', 'key', 'revoke', key);
    expect(JSON.parse(revoked.stdout)).to.deep.equal({ revoked: true });
    expect((await request(app).get('/v1/events').set(bearer(key))).status).to.equal(401);
  });

  it('fails with one line on stderr and a non-zero exit for an unknown tenant', async () => {
    const { stdout, stderr, code } = await doorman('--json', 'key', 'create', '--tenant', 'ten_nope', '--kind', 'secret', '--mode', 'live');
    expect(code).to.not.equal(0);
    expect(stdout).to.equal('');
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.match(/No tenant ten_nope/);
  });

  it('treats an unknown tenant alike in every scoped command: one line, not_found, non-zero exit', async () => {
    for (const args of [
      ['policy', 'history'],
      ['policy', 'show'],
      ['policy', 'replay', '--all'],
      ['policy', 'shadow', 'clear'],
      ['policy', 'backtest-result', 'bkt_x'],
      ['review', 'list'],
      ['webhook', 'show'],
      ['graph', 'rebuild'],
      ['graph', 'recluster'],
      ['graph', 'explain', 'evt_x'],
      ['feedback', 'list'],
      ['feedback', 'retract', 'fbk_x', '--note', 'n'],
    ]) {
      const { stdout, stderr, code } = await doorman('--json', ...args, '--tenant', 'ten_nope', '--mode', 'live');
      expect(code, args.join(' ')).to.not.equal(0);
      expect(stdout, args.join(' ')).to.equal('');
      expect(stderr.trim().split('\n'), `${args.join(' ')}: ${stderr}`).to.have.length(1);
      expect(stderr, args.join(' ')).to.match(/No tenant ten_nope/);
    }
  });

  it('fails cleanly on a bad configuration, listing the problem', async () => {
    const { stderr, code } = await run('node', ['bin/doorman.js', '--json', 'migrate'], {
      env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', PORT: 'eighty' },
    }).then(
      (r) => ({ ...r, code: 0 }),
      (e: { stderr: string; code: number }) => e,
    );
    expect(code).to.not.equal(0);
    expect(stderr).to.match(/PORT must be an integer/);
  });
});
