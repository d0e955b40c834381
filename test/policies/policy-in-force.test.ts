// The verdict path under published policies, end to end: a publication reaches a running
// instance without a restart (its next verdict carries the new version and its thresholds,
// velocity windows included), and a shadow policy is judged beside the live one, stored, and
// never changes what was answered.
import { expect } from 'chai';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { setShadow } from '../../src/policies/shadows/shadow-policy.js';
import { bearer } from '../support/fixtures.js';
import { startServer, until } from '../support/processes.js';
import { aSignup, IPS, standIns, verdictHarness } from '../support/verdict-harness.js';
import { aDocument } from './policy-builders.js';

describe('the policy in force on the verdict path', function () {
  this.timeout(120_000);

  it('reaches a second, running instance: its next verdict carries the new version and thresholds', async () => {
    const h = await verdictHarness();
    const { dns, intelDir } = await standIns();
    const server = await startServer({ DNS_SERVERS: dns.server, INTEL_DIR: intelDir, SIGNAL_DEADLINE_MS: '2000' });
    try {
      const post = (body: object) =>
        fetch(`http://127.0.0.1:${server.port}/v1/verdict`, {
          method: 'POST',
          headers: { ...bearer(h.tenant.keys.sk_test), 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }).then(
          (r) =>
            r.json() as Promise<{ verdict: string; policy_version: string; reasons: { code: string; detail?: Record<string, unknown> }[] }>,
        );
      const before = await post(aSignup({ ip: '100.64.70.1' }));
      expect(before.policy_version).to.equal('2026-11-26.1');
      // Stricter: the 2nd signup from an ip in 10 minutes is reviewed.
      const version = await publishPolicy(
        h.deps,
        { tenantId: h.tenant.tenantId, mode: 'test' },
        {
          document: aDocument({ velocity_ip_signups: { over: 1, window_seconds: 600 } }),
          note: 'tighter',
        },
      );
      const next = await until(
        'the running instance to judge with the publication',
        async () => {
          const res = await post(aSignup({ ip: '100.64.70.2' }));
          return res.policy_version === version ? res : undefined;
        },
        20_000,
      );
      expect(next.policy_version).to.equal(version);
      const second = await post(aSignup({ ip: '100.64.70.2' }));
      expect(second.verdict).to.equal('review');
      expect(second.reasons.find((r) => r.code === 'velocity_ip_signups')?.detail).to.include({ threshold: 1, window_seconds: 600 });
      // The other mode keeps the default.
      const live = await fetch(`http://127.0.0.1:${server.port}/v1/verdict`, {
        method: 'POST',
        headers: { ...bearer(h.tenant.keys.sk_live), 'Content-Type': 'application/json' },
        body: JSON.stringify(aSignup()),
      }).then((r) => r.json() as Promise<{ policy_version: string }>);
      expect(live.policy_version).to.equal('2026-11-26.1');
    } finally {
      await server.stop();
    }
  });

  it('judges with the shadow after the response, stores it, and never changes what was answered', async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const strict = await publishPolicy(h.deps, scope, { document: aDocument({ proxy_ip: { effects: { signup: 'block' } } }) });
    // Published and shadowed, but not in force: publishing a newer version puts it in force, so
    // publish the default again after it.
    const inForce = await publishPolicy(h.deps, scope, { document: aDocument() });
    await setShadow(h.deps, scope, strict);
    await until('this instance to know the shadow', async () => {
      await h.deps.policies.refresh(scope);
      return h.deps.policies.shadowFor(scope)?.version === strict ? true : undefined;
    });
    const res = await h.verdict(aSignup({ ip: IPS.proxy }));
    expect(res.body).to.include({ verdict: 'review', policy_version: inForce });
    expect(res.body.reasons).to.deep.equal([{ code: 'proxy_ip' }]);
    const stored = await until('the shadow decision', async () => {
      const { rows } = await h.deps.db.query(
        'SELECT verdict, live_verdict, policy_version FROM shadow_decisions WHERE tenant_id = $1 AND event_id = $2',
        [scope.tenantId, res.body.id],
      );
      return rows[0];
    });
    expect(stored).to.deep.equal({ verdict: 'block', live_verdict: 'review', policy_version: strict });
    const { rows } = await h.deps.db.query('SELECT verdict, engine_version FROM events WHERE id = $1', [res.body.id]);
    expect(rows[0].verdict).to.equal('review');
    expect(rows[0].engine_version).to.match(/^\d{4}-\d{2}-\d{2}\.\d+$/);
  });
});
