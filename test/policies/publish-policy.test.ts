// Publishing: versions <YYYY-MM-DD>.<n> per tenant, mode and day; immutable and kept; the policy
// in force reaches every instance without a restart (NOTIFY), shadows too, and within the bound
// when the instance's LISTEN connection goes silent.
import { expect } from 'chai';
import { createDeps, type Deps } from '../../src/deps.js';
import { defaultPolicy } from '../../src/engine/policy.js';
import { AppError } from '../../src/errors.js';
import { createPolicyRegistry, watchPolicies } from '../../src/policies/documents/policy-registry.js';
import { findPolicyVersion, listPolicyVersions } from '../../src/policies/documents/policy-store.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { clearShadow, setShadow } from '../../src/policies/shadows/shadow-policy.js';
import { aTenant } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { startTcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { testConfig, testDeps } from '../support/test-deps.js';
import { pino } from 'pino';
import { aDocument, doorman, doormanJson, writeDocument } from './policy-builders.js';

const at = (iso: string) => ({ now: () => new Date(iso) });

// An instance whose announcements connection (DATABASE_DIRECT_URL) runs through a TCP proxy the
// test cuts or stalls, watching publications as serve does.
async function watchingThroughAProxy() {
  const target = new URL(testConfig().databaseUrl);
  const proxy = await startTcpFaultProxy(Number(target.port || 5432));
  const listening = new URL(target);
  listening.hostname = '127.0.0.1';
  listening.port = String(proxy.port);
  const config = testConfig({ DATABASE_DIRECT_URL: listening.toString() });
  const d = createDeps(config, { logger: pino({ level: 'silent' }) });
  return { proxy, config, d, watch: watchPolicies(d) };
}

describe('publishing a policy', function () {
  this.timeout(300_000);
  const deps = testDeps();

  it('numbers versions per tenant, mode and day, after any shipped default of that day', async () => {
    const { tenantId } = await aTenant(deps);
    const live = { tenantId, mode: 'live' as const };
    const test = { tenantId, mode: 'test' as const };
    const on = (iso: string) => ({ ...deps, clock: at(iso) });
    expect(await publishPolicy(on('2031-05-04T00:00:01Z'), live, { document: aDocument() })).to.equal('2031-05-04.1');
    expect(await publishPolicy(on('2031-05-04T23:59:59Z'), live, { document: aDocument() })).to.equal('2031-05-04.2');
    expect(await publishPolicy(on('2031-05-04T12:00:00Z'), test, { document: aDocument() })).to.equal('2031-05-04.1');
    expect(await publishPolicy(on('2031-05-05T00:00:00Z'), live, { document: aDocument() })).to.equal('2031-05-05.1');
    const other = await aTenant(deps);
    expect(await publishPolicy(on('2031-05-04T10:00:00Z'), { tenantId: other.tenantId, mode: 'live' }, { document: aDocument() })).to.equal(
      '2031-05-04.1',
    );
    // The shipped default is 2026-11-22.1: a publication that day must not reuse its name.
    expect(await publishPolicy(on('2026-11-22T08:00:00Z'), live, { document: aDocument() })).to.equal('2026-11-22.2');
    expect((await listPolicyVersions(deps.db, live)).map((v) => v.version)).to.deep.equal([
      '2026-11-22.2',
      '2031-05-05.1',
      '2031-05-04.2',
      '2031-05-04.1',
    ]);
  });

  it('gives concurrent publications distinct numbers', async () => {
    const { tenantId } = await aTenant(deps);
    const scope = { tenantId, mode: 'live' as const };
    const versions = await Promise.all(
      Array.from({ length: 6 }, () => publishPolicy({ ...deps, clock: at('2032-01-01T10:00:00Z') }, scope, { document: aDocument() })),
    );
    expect([...versions].sort()).to.deep.equal([
      '2032-01-01.1',
      '2032-01-01.2',
      '2032-01-01.3',
      '2032-01-01.4',
      '2032-01-01.5',
      '2032-01-01.6',
    ]);
  });

  it('stores the document with its version and note, and keeps published versions immutable', async () => {
    const { tenantId } = await aTenant(deps);
    const scope = { tenantId, mode: 'test' as const };
    const version = await publishPolicy(deps, scope, { document: aDocument({ proxy_ip: { enabled: false } }), note: 'quiet proxies' });
    const stored = await findPolicyVersion(deps.db, scope, version);
    expect(stored?.document).to.deep.equal({ ...aDocument({ proxy_ip: { enabled: false } }), version });
    expect(stored?.note).to.equal('quiet proxies');
    for (const sql of [
      `UPDATE policy_versions SET note = 'changed' WHERE tenant_id = $1`,
      `UPDATE policy_versions SET document = '{}' WHERE tenant_id = $1`,
      'DELETE FROM policy_versions WHERE tenant_id = $1',
    ]) {
      const err = await deps.db.query(sql, [tenantId]).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, sql).to.match(/immutable/);
    }
    // Inside a transaction that is rolled back whatever happens: a test never truncates.
    const client = await deps.db.connect();
    try {
      await client.query('BEGIN');
      const truncate = await client.query('TRUNCATE policy_versions CASCADE').then(
        () => undefined,
        (e: Error) => e,
      );
      expect(truncate?.message).to.match(/immutable/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    expect((await findPolicyVersion(deps.db, scope, version))?.note).to.equal('quiet proxies');
  });

  it('refuses an invalid document with every problem, and an unknown tenant', async () => {
    const { tenantId } = await aTenant(deps);
    const bad = { ...aDocument({ tor_exit: { effects: { signup: 'ban' as never } } }), list_precedence: ['allow'] };
    const err = await publishPolicy(deps, { tenantId, mode: 'live' }, { document: bad }).catch((e: AppError) => e);
    expect(err).to.be.instanceOf(AppError);
    expect((err as AppError).code).to.equal('invalid_request');
    expect(((err as AppError).details!.issues as { path: string }[]).map((i) => i.path)).to.deep.equal([
      '/list_precedence',
      '/rules/tor_exit/effects/signup',
    ]);
    expect(await listPolicyVersions(deps.db, { tenantId, mode: 'live' })).to.deep.equal([]);
    const missing = await publishPolicy(deps, { tenantId: 'ten_nobody', mode: 'live' }, { document: aDocument() }).catch(
      (e: AppError) => e,
    );
    expect((missing as AppError).code).to.equal('not_found');
  });

  it('doorman policy publish, history and show: the JSON shapes', async () => {
    const { tenantId } = await aTenant(deps);
    const file = writeDocument(aDocument({ velocity_ip_signups: { over: 9, block_over: 30 } }));
    const { policy_version: v1 } = await doormanJson('policy', 'publish', file, '--tenant', tenantId, '--mode', 'live', '--note', 'looser');
    // .1, or the next number on a day a default was shipped (2026-11-25.1).
    expect(v1).to.match(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    const { policy_version: v2 } = await doormanJson('policy', 'publish', file, '--tenant', tenantId, '--mode', 'live');
    expect(v2).to.equal(v1.replace(/\.(\d+)$/, (_m: string, n: string) => `.${Number(n) + 1}`));
    const history = await doormanJson('policy', 'history', '--tenant', tenantId, '--mode', 'live');
    expect(history.default).to.equal(defaultPolicy.version);
    expect(
      history.versions.map((v: { policy_version: string; in_force: boolean; note: string | null }) => [
        v.policy_version,
        v.in_force,
        v.note,
      ]),
    ).to.deep.equal([
      [v2, true, null],
      [v1, false, 'looser'],
    ]);
    const shown = await doormanJson('policy', 'show', '--tenant', tenantId, '--mode', 'live', '--version', v1);
    expect(shown.version).to.equal(v1);
    expect(shown.rules.velocity_ip_signups.over).to.equal(9);
    const inForceTest = await doormanJson('policy', 'show', '--tenant', tenantId, '--mode', 'test');
    expect(inForceTest.version).to.equal(defaultPolicy.version);
    const invalid = await doorman('--json', 'policy', 'publish', writeDocument({ format: 1 }), '--tenant', tenantId, '--mode', 'live');
    expect(invalid.code).to.equal(1);
    expect(invalid.stdout).to.equal('');
    expect(invalid.stderr).to.match(/^doorman: The policy document is invalid\. \/list_precedence is required/);
  });
});

describe('the policy in force, on every instance', function () {
  this.timeout(300_000);
  const deps = testDeps();
  // Two instances: separate pools, registries and LISTEN connections, as two servers have.
  const instance = (): Deps & { stop(): Promise<void> } => {
    const config = testConfig();
    const d = createDeps(config, { logger: pino({ level: 'silent' }) });
    const watch = watchPolicies(d);
    return Object.assign(d, {
      stop: async () => {
        await watch.close();
        await d.close();
      },
    });
  };

  it('falls back to the shipped default, then picks up each publication and shadow without a restart', async () => {
    const [a, b] = [instance(), instance()];
    try {
      await Promise.all([a.policies.load(), b.policies.load()]);
      const { tenantId } = await aTenant(deps);
      const scope = { tenantId, mode: 'live' as const };
      expect(a.policies.forScope(scope)).to.equal(defaultPolicy);
      expect(b.policies.shadowFor(scope)).to.equal(undefined);

      const v1 = await publishPolicy(deps, scope, { document: aDocument({ velocity_ip_signups: { over: 2, block_over: 8 } }) });
      for (const d of [a, b])
        await until('publication seen', async () => (d.policies.forScope(scope).version === v1 ? true : undefined), 10_000);
      expect(b.policies.forScope(scope).rules.velocity_ip_signups).to.deep.include({ over: 2, blockOver: 8 });
      expect(a.policies.forScope({ tenantId, mode: 'test' })).to.equal(defaultPolicy);

      const v2 = await publishPolicy(deps, scope, { document: aDocument({ proxy_ip: { enabled: false } }) });
      await setShadow(deps, scope, v1);
      for (const d of [a, b]) {
        await until(
          'second publication and shadow seen',
          async () => (d.policies.forScope(scope).version === v2 && d.policies.shadowFor(scope)?.version === v1 ? true : undefined),
          10_000,
        );
      }
      await clearShadow(deps, scope);
      for (const d of [a, b])
        await until('shadow cleared', async () => (d.policies.shadowFor(scope) === undefined ? true : undefined), 10_000);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('judges by the policy in Postgres while its announcements connection cannot prove it current', async () => {
    const { proxy, d, watch } = await watchingThroughAProxy();
    try {
      const scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'live' as const };
      const v1 = await publishPolicy(deps, scope, { document: aDocument() });
      await until('publication seen', async () => ((await d.policies.inForce(scope)).version === v1 ? true : undefined), 10_000);
      // The connection gone (a Postgres restart, say): no announcement can arrive, and the memory
      // is not trusted from that moment, so the next verdict reads what was published meanwhile.
      proxy.cut();
      const v2 = await publishPolicy(deps, scope, { document: aDocument() });
      expect((await d.policies.inForce(scope)).version).to.equal(v2);
    } finally {
      await Promise.all([watch.close(), proxy.close()]);
      await d.close();
    }
  });

  it('applies a publication made while its announcements connection is silent, within the bound and a read', async () => {
    const { proxy, config, d, watch } = await watchingThroughAProxy();
    try {
      const scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'live' as const };
      const v1 = await publishPolicy(deps, scope, { document: aDocument() });
      await until('publication seen', async () => (d.policies.forScope(scope).version === v1 ? true : undefined), 10_000);
      // Every byte either way dropped, both sockets open: no error ever comes.
      proxy.stall();
      const publishedAt = Date.now();
      const v2 = await publishPolicy(deps, scope, { document: aDocument() });
      await until(
        'publication seen without its announcement',
        async () => (d.policies.forScope(scope).version === v2 ? true : undefined),
        config.memoryStalenessMs + 2_000,
      );
      expect(Date.now() - publishedAt).to.be.below(config.memoryStalenessMs + 2_000);
    } finally {
      await Promise.all([watch.close(), proxy.close()]);
      await d.close();
    }
  });

  it('loads every scope at warm-up, and refreshes one scope on demand', async () => {
    const { tenantId } = await aTenant(deps);
    const scope = { tenantId, mode: 'test' as const };
    const version = await publishPolicy(deps, scope, { document: aDocument() });
    const registry = createPolicyRegistry(deps.db);
    expect(registry.forScope(scope)).to.equal(defaultPolicy);
    await registry.load();
    expect(registry.forScope(scope).version).to.equal(version);
    const later = await publishPolicy(deps, scope, { document: aDocument() });
    await registry.refresh(scope);
    expect(registry.forScope(scope).version).to.equal(later);
    expect(registry.forScope({ tenantId: 'ten_unknown', mode: 'test' })).to.equal(defaultPolicy);
  });

  it('keeps a newer answer when an older read finishes after it', async () => {
    const a = { tenantId: (await aTenant(deps)).tenantId, mode: 'live' as const };
    const b = { tenantId: (await aTenant(deps)).tenantId, mode: 'live' as const };
    const [a1, b1] = [await publishPolicy(deps, a, { document: aDocument() }), await publishPolicy(deps, b, { document: aDocument() })];
    // The full load reads at once but answers only when released: it has read A's first version.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slowLoads = {
      query: async (text: string, params: unknown[]) => {
        const result = await deps.db.query(text, params);
        if (params[0] === null) await released;
        return result;
      },
    } as unknown as typeof deps.db;
    const registry = createPolicyRegistry(slowLoads);
    const loading = registry.load();
    await until('the load has read', async () =>
      (await Promise.race([loading.then(() => 'done'), new Promise((r) => setTimeout(() => r('waiting'), 200))])) === 'waiting'
        ? true
        : undefined,
    );
    const a2 = await publishPolicy(deps, a, { document: aDocument() });
    await registry.refresh(a);
    expect(registry.forScope(a).version).to.equal(a2);
    release();
    await loading;
    expect(registry.forScope(a).version, 'the later refresh wins over the earlier load').to.equal(a2);
    expect(registry.forScope(b).version, 'the load still applies to every other scope').to.equal(b1);
    expect(a1).to.not.equal(a2);
  });

  it('refuses a shadow that is not a published version of the scope', async () => {
    const { tenantId } = await aTenant(deps);
    const err = await setShadow(deps, { tenantId, mode: 'live' }, defaultPolicy.version).catch((e: AppError) => e);
    expect((err as AppError).code).to.equal('not_found');
  });
});
