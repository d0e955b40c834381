// Contract §2.1/§5: a device token that is expired, tampered, malformed, signed by a key we do
// not hold (foreign kid), from another tenant or from the other mode is dropped silently: the
// verdict is 200, with no device signal, no reason code, and nothing counted anywhere.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import request from 'supertest';
import { createApp, type App } from '../../src/app.js';
import { aTenant, bearer, type TestTenant } from '../support/fixtures.js';
import { aSignup, DOMAINS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { issueToken, recorded, tokenClaims } from '../support/device-tokens.js';

describe('POST /v1/verdict with a device token that must be dropped', () => {
  let h: Harness;
  before(async () => {
    h = await verdictHarness();
  });

  // Six signups with the token from fresh addresses: with a valid token the sixth would fire
  // velocity_device_signups (over 5 a day). Returns what was answered, stored and counted.
  async function screenSix(tenant: TestTenant, token: string, app: App = h.app) {
    const answers: request.Response[] = [];
    for (let i = 0; i < 6; i++) {
      const ip = `100.64.${Math.floor(Math.random() * 250)}.${i + 1}`;
      answers.push(
        await request(app)
          .post('/v1/verdict')
          .set(bearer(tenant.keys.sk_test))
          // Free-mail: a test screening many sets in one tenant stays under the domain velocity.
          .send(aSignup({ ip, device_token: token, email: `d${Math.random().toString(36).slice(2)}@${DOMAINS.freemail}` })),
      );
    }
    const { rows } = await h.deps.db.query<{ device: string | null }>(
      `SELECT signals->>'deviceId' AS device FROM events WHERE tenant_id = $1 AND mode = 'test' AND id = ANY($2)`,
      [tenant.tenantId, answers.map((a) => a.body.id)],
    );
    const counted = await h.deps.redis.keys(`vel:{${tenant.tenantId}:*}:signup_device:*`);
    return { answers, storedDevices: rows.map((r) => r.device), counted };
  }

  function expectDropped(result: Awaited<ReturnType<typeof screenSix>>) {
    for (const res of result.answers) {
      expect(res.status).to.equal(200);
      expect(res.body.verdict).to.equal('allow');
      expect(res.body.reasons).to.deep.equal([]);
    }
    expect(result.storedDevices).to.deep.equal([null, null, null, null, null, null]);
    expect(result.counted).to.deep.equal([]);
  }

  const freshToken = async (tenant: TestTenant, key: 'pk_test' | 'pk_live' = 'pk_test') =>
    issueToken(h.app, tenant.keys[key], recorded('desktop-load-1'));

  it('counts a valid token (the control: the checks below can fail)', async () => {
    const tenant = await aTenant(h.deps);
    const result = await screenSix(tenant, await freshToken(tenant));
    expect(result.storedDevices.every((d) => typeof d === 'string' && d.startsWith('dev_'))).to.equal(true);
    expect(result.counted).to.have.length(1);
    expect(result.answers[5]!.body.reasons.map((r: { code: string }) => r.code)).to.include('velocity_device_signups');
  });

  it('drops an expired token', async () => {
    const tenant = await aTenant(h.deps);
    const token = await freshToken(tenant);
    const pastExpiry = (tokenClaims(token).exp + 1) * 1000;
    const later = createApp({ ...h.deps, clock: { now: () => new Date(pastExpiry) } });
    expectDropped(await screenSix(tenant, token, later));
  });

  it('drops a tampered token: another device id in the payload, or a changed signature', async () => {
    const tenant = await aTenant(h.deps);
    const [header, payload, signature] = (await freshToken(tenant)).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const otherDevice = Buffer.from(JSON.stringify({ ...claims, sub: 'dev_0123456789abcdef0123456789abcdef' })).toString('base64url');
    expectDropped(await screenSix(tenant, `${header}.${otherDevice}.${signature}`));
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
    expectDropped(await screenSix(tenant, `${header}.${payload}.${flipped}`));
  });

  it('drops a malformed token', async () => {
    const tenant = await aTenant(h.deps);
    for (const token of ['not-a-token', 'a.b.c', '..', 'eyJhbGciOiJub25lIn0.e30.', '%%%.###.$$$']) {
      expectDropped(await screenSix(tenant, token));
    }
  });

  it('drops a token signed by a key it does not hold (foreign kid, or none), without a query per request', async () => {
    const tenant = await aTenant(h.deps);
    const claims = tokenClaims(await freshToken(tenant));
    const forge = (kid?: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', ...(kid && { kid }) })
        .setIssuer('doorman')
        .setAudience(claims.aud)
        .setSubject(claims.sub)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(randomBytes(32));
    const loadsBefore = h.deps.secrets.deviceKeys.loads();
    expectDropped(await screenSix(tenant, await forge('dk_foreign')));
    expectDropped(await screenSix(tenant, await forge()));
    for (let i = 0; i < 3; i++) expectDropped(await screenSix(tenant, await forge(`dk_forged_${i}`)));
    // Twenty forged verdicts: at most one reload of the keys (unknown kids reload once per 5 s).
    expect(h.deps.secrets.deviceKeys.loads() - loadsBefore).to.be.at.most(1);
  });

  it('drops a token from another tenant', async () => {
    const [tenant, other] = [await aTenant(h.deps), await aTenant(h.deps)];
    expectDropped(await screenSix(tenant, await freshToken(other)));
  });

  it('drops a token from the other mode', async () => {
    const tenant = await aTenant(h.deps);
    expectDropped(await screenSix(tenant, await freshToken(tenant, 'pk_live')));
  });
});
