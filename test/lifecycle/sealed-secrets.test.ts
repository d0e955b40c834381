// Secrets at rest: webhook signing secrets, device-token signing keys and service
// secrets are stored sealed (AES-256-GCM under a data key wrapped by SECRETS_KEY); a sealed value
// opens only in its own row; rows stored in the plain before are sealed by `migrate`; the master
// key rotates without downtime (old and new held while `secrets rotate-key` re-wraps), after which
// the old key alone opens nothing. The rotation runs in a database of its own: the suite's data
// keys stay under the suite's key.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import { createDeps, type Deps } from '../../src/deps.js';
import { migratePostgres } from '../../src/db/migrate.js';
import { rotateDeviceKey } from '../../src/devices/rotate-device-key.js';
import { rotateMasterKey, sealPlainSecrets } from '../../src/lifecycle/seal-stored-secrets.js';
import { VaultError } from '../../src/vault/vault.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { validSecrets } from '../../src/webhooks/webhook-store.js';
import { doorman } from '../support/cli-runner.js';
import { aTenant } from '../support/fixtures.js';
import { testConfig, testDeps } from '../support/test-deps.js';

const key = () => randomBytes(32).toString('base64');

describe('secrets sealed at rest', function () {
  this.timeout(90_000);

  it('stores webhook secrets, device signing keys and service secrets sealed, never in the plain', async () => {
    const deps = testDeps({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    const tenant = await aTenant(deps);
    const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
    const { secret } = await setWebhook(deps, scope, 'http://127.0.0.1:9/hook');
    const { kid } = await rotateDeviceKey(deps);
    const name = `sealed_test_${randomBytes(4).toString('hex')}`;
    const serviceSecret = await deps.secrets.get(name);
    const { rows } = await deps.db.query(
      `SELECT 'webhook' AS what, secret::text, sealed FROM webhook_secrets WHERE tenant_id = $1
       UNION ALL SELECT 'device', secret::text, sealed FROM device_signing_keys WHERE kid = $2
       UNION ALL SELECT 'service', secret::text, sealed FROM service_secrets WHERE name = $3`,
      [tenant.tenantId, kid, name],
    );
    expect(rows.map((r) => r.what)).to.deep.equal(['webhook', 'device', 'service']);
    for (const row of rows) {
      expect(row.secret, row.what).to.equal(null);
      expect(row.sealed, row.what).to.match(/^v1\.dek_/);
    }
    expect(rows[0].sealed).not.to.contain(secret.slice(6));
    expect(rows[2].sealed).not.to.contain(serviceSecret.toString('base64url'));
    // And they open again, as the delivery job reads them.
    expect(await validSecrets(deps.db, deps.vault, scope)).to.deep.equal([secret]);
  });

  it('opens a sealed value only in its own row, and refuses one that was altered', async () => {
    const deps = testDeps({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    const a = await aTenant(deps);
    const b = await aTenant(deps);
    const sa = { tenantId: a.tenantId, mode: 'test' as const };
    const sb = { tenantId: b.tenantId, mode: 'test' as const };
    await setWebhook(deps, sa, 'http://127.0.0.1:9/a');
    await setWebhook(deps, sb, 'http://127.0.0.1:9/b');
    // Tenant A's sealed secret copied into tenant B's row: it does not open there.
    await deps.db.query(
      `UPDATE webhook_secrets SET sealed = (SELECT sealed FROM webhook_secrets WHERE tenant_id = $1) WHERE tenant_id = $2`,
      [a.tenantId, b.tenantId],
    );
    let moved: unknown;
    await validSecrets(deps.db, deps.vault, sb).catch((err) => {
      moved = err;
    });
    expect(moved).to.be.instanceOf(VaultError);
    // One character of A's own changed: it does not open either.
    await deps.db.query(
      `UPDATE webhook_secrets SET sealed = left(sealed, -3) || CASE WHEN right(sealed, 3) = 'AAA' THEN 'BBB' ELSE 'AAA' END WHERE tenant_id = $1`,
      [a.tenantId],
    );
    let altered: unknown;
    await validSecrets(deps.db, deps.vault, sa).catch((err) => {
      altered = err;
    });
    expect(altered).to.be.instanceOf(VaultError);
  });

  it('seals what was stored in the plain before (doorman migrate does it)', async () => {
    const deps = testDeps();
    const tenant = await aTenant(deps);
    const plain = `whsec_${randomBytes(24).toString('base64url')}`;
    await deps.db.query(`INSERT INTO webhook_secrets (id, tenant_id, mode, secret) VALUES ($1, $2, 'test', $3)`, [
      `whs_plain_${tenant.tenantId}`,
      tenant.tenantId,
      plain,
    ]);
    expect(await validSecrets(deps.db, deps.vault, { tenantId: tenant.tenantId, mode: 'test' })).to.deep.equal([plain]);
    expect(await sealPlainSecrets(deps)).to.be.at.least(1);
    const { rows } = await deps.db.query('SELECT secret, sealed FROM webhook_secrets WHERE tenant_id = $1', [tenant.tenantId]);
    expect(rows[0].secret).to.equal(null);
    expect(rows[0].sealed).to.match(/^v1\./);
    expect(await validSecrets(deps.db, deps.vault, { tenantId: tenant.tenantId, mode: 'test' })).to.deep.equal([plain]);
  });

  it('rotates the master key without downtime: both keys held meanwhile, the old one alone opens nothing after', async () => {
    const admin = new pg.Client({ connectionString: testConfig().databaseUrl });
    await admin.connect();
    const database = `doorman_vault_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(testConfig().databaseUrl);
    url.pathname = `/${database}`;
    const opened: Deps[] = [];
    const depsWith = (env: Record<string, string>) => {
      const d = createDeps(testConfig({ DATABASE_URL: url.href, WEBHOOK_ALLOW_PRIVATE: 'true', SECRETS_PREVIOUS_KEYS: '', ...env }), {
        logger: pino({ level: 'silent' }),
      });
      opened.push(d);
      return d;
    };
    try {
      const oldKey = key();
      const newKey = key();
      const before = depsWith({ SECRETS_KEY: oldKey });
      await migratePostgres(before.config, before.logger);
      await before.db.query(`INSERT INTO tenants (id, name) VALUES ('ten_vault', 'vault')`);
      const scope = { tenantId: 'ten_vault', mode: 'test' as const };
      const { secret } = await setWebhook(before, scope, 'http://127.0.0.1:9/hook');
      const device = await before.secrets.deviceKeys.signingKey();

      // Every instance now holds both keys (the new one seals): old rows still open.
      const during = depsWith({ SECRETS_KEY: newKey, SECRETS_PREVIOUS_KEYS: oldKey });
      expect(await validSecrets(during.db, during.vault, scope)).to.deep.equal([secret]);
      const rotated = await rotateMasterKey(during);
      expect(rotated).to.include({ dataKeys: 1, rewrapped: 1 });
      expect(rotated.secrets).to.be.at.least(2);

      // The old key has left the configuration: the new one alone opens everything.
      const after = depsWith({ SECRETS_KEY: newKey });
      expect(await validSecrets(after.db, after.vault, scope)).to.deep.equal([secret]);
      expect((await after.secrets.deviceKeys.signingKey()).kid).to.equal(device.kid);
      const stale = depsWith({ SECRETS_KEY: oldKey });
      let refused: unknown;
      await validSecrets(stale.db, stale.vault, scope).catch((err) => {
        refused = err;
      });
      expect(refused).to.be.instanceOf(VaultError);
      expect(String((refused as Error).message)).to.match(/neither SECRETS_KEY nor SECRETS_PREVIOUS_KEYS/);
    } finally {
      await Promise.all(opened.map((d) => d.close()));
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('refuses to serve or migrate without a master key, saying what to do', async () => {
    for (const command of [['serve'], ['migrate']]) {
      const run = await doorman(['--json', ...command], { SECRETS_KEY: '' });
      expect(run.code, command[0]).to.not.equal(0);
      expect(run.stderr).to.match(/SECRETS_KEY is required/);
    }
    const made = await doorman(['--json', 'secrets', 'new-key']);
    expect(Buffer.from(JSON.parse(made.stdout).key, 'base64')).to.have.length(32);
  });
});
