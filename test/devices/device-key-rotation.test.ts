// `doorman device rotate-key`: a new current signing key that every running instance picks up
// without a restart (Postgres NOTIFY), while the previous key keeps verifying until the longest
// token lifetime has passed. Device ids do not change with the key.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { aTenant, bearer } from '../support/fixtures.js';
import { startServer, until } from '../support/processes.js';
import { testDeps, testEnv } from '../support/test-deps.js';
import { aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { deviceIdOf, issueToken, recorded, tokenHeader } from '../support/device-tokens.js';

const run = promisify(execFile);

async function rotateKey(): Promise<string> {
  const { stdout } = await run('node', ['bin/doorman.js', '--json', 'device', 'rotate-key'], {
    env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', LOG_LEVEL: 'warn' },
    timeout: 60_000,
  });
  const out = JSON.parse(stdout);
  expect(Object.keys(out)).to.deep.equal(['kid']);
  expect(out.kid).to.match(/^dk_[0-9a-f]{32}$/);
  return out.kid as string;
}

describe('doorman device rotate-key', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await verdictHarness();
  });

  const deviceSignal = async (app: typeof h.app, token: string) => {
    const res = await request(app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send(aSignup({ device_token: token }));
    expect(res.status).to.equal(200);
    const { rows } = await h.deps.db.query<{ device: string | null }>(
      `SELECT signals->>'deviceId' AS device FROM events WHERE tenant_id = $1 AND mode = 'test' AND id = $2`,
      [h.tenant.tenantId, res.body.id],
    );
    return rows[0]?.device ?? null;
  };

  it('is picked up by a running server without a restart; the device id stays the same', async () => {
    const server = await startServer();
    try {
      const tenant = await aTenant(h.deps);
      const issue = async () => {
        const res = await fetch(`http://127.0.0.1:${server.port}/v1/device`, {
          method: 'POST',
          headers: { ...bearer(tenant.keys.pk_test), 'Content-Type': 'application/json' },
          body: JSON.stringify(recorded('desktop-load-1')),
        });
        return ((await res.json()) as { device_token: string }).device_token;
      };
      const before = await issue();
      const kid = await rotateKey();
      expect(tokenHeader(before).kid).to.not.equal(kid);
      // Well inside the minute after which an instance would refresh on its own: this is NOTIFY.
      const after = await until(
        'the server to sign with the new key',
        async () => {
          const token = await issue();
          return tokenHeader(token).kid === kid ? token : undefined;
        },
        20_000,
      );
      expect(deviceIdOf(after)).to.equal(deviceIdOf(before));
    } finally {
      await server.stop();
    }
  });

  it('keeps the previous key verifying until the longest token lifetime has passed, then drops its tokens', async () => {
    // An instance with hour-long tokens signs with the current key before the rotation.
    const longLived = createApp(testDeps({ DEVICE_TOKEN_TTL_SECONDS: '3600' }));
    const old = await issueToken(longLived, h.tenant.keys.pk_test, recorded('desktop-load-1'));
    await rotateKey(); // run with the default lifetime, 900 s: the previous key retires 900 s from now
    await h.deps.secrets.deviceKeys.reload();
    const fresh = await issueToken(h.app, h.tenant.keys.pk_test, recorded('desktop-load-1'));
    expect(tokenHeader(fresh).kid).to.not.equal(tokenHeader(old).kid);

    const at = (seconds: number) => createApp({ ...h.deps, clock: { now: () => new Date(Date.now() + seconds * 1000) } });
    expect(await deviceSignal(h.app, old), 'the previous key verifies right after the rotation').to.equal(deviceIdOf(old));
    expect(await deviceSignal(at(800), old), 'and 800 s later').to.equal(deviceIdOf(old));
    expect(await deviceSignal(at(1000), old), 'not past 900 s, though the token itself lives an hour').to.equal(null);
    expect(await deviceSignal(h.app, fresh)).to.equal(deviceIdOf(old));
  });
});
