// Past one machine: two API instances (`serve --no-worker`) and a separate
// `doorman worker`, behind nothing but their ports, share everything through the stores: an
// Idempotency-Key, velocity, the rate limit, stored events and the graph; the worker alone
// delivers webhooks; when processes die, the others take their graph lanes and carry on.
import { expect } from 'chai';
import { verify } from '@octokit/webhooks-methods';
import { doorman } from '../support/cli-runner.js';
import { aTenant, bearer } from '../support/fixtures.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { startServer, startWorker, until, type Child } from '../support/processes.js';
import { rootGraphWriter } from '../support/root-hooks.js';
import { testDeps } from '../support/test-deps.js';
import { DOMAINS, IPS, standIns } from '../support/verdict-harness.js';

describe('two API instances and a worker', function () {
  this.timeout(180_000);
  const started: Child[] = [];
  before(async () => rootGraphWriter().stop());
  after(async () => {
    await Promise.all(started.map((c) => c.kill()));
    await rootGraphWriter().start();
  });

  it('share idempotency, velocity, rate limits, events and the graph; the worker delivers; lanes move when processes die', async () => {
    const deps = testDeps();
    const { dns, intelDir } = await standIns();
    const env = {
      DNS_SERVERS: dns.server,
      INTEL_DIR: intelDir,
      RATE_LIMIT_PER_MINUTE: '20',
      SIGNAL_DEADLINE_MS: '2000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    const worker = await startWorker(env);
    started.push(worker);
    const [a, b] = await Promise.all([startServer(env), startServer(env)]);
    started.push(a!, b!);
    const tenant = await aTenant(deps);
    const post = (server: Child, body: object, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${server.port}/v1/verdict`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { ...bearer(tenant.keys.sk_test), 'Content-Type': 'application/json', ...headers },
      });
    const linked = () =>
      until(
        "the tenant's links applied",
        async () => {
          const { rows } = await deps.db.query('SELECT count(*)::int AS n FROM graph_outbox WHERE tenant_id = $1', [tenant.tenantId]);
          return rows[0].n === 0 ? true : undefined;
        },
        30_000,
      );

    // An Idempotency-Key used on A is replayed byte for byte by B.
    const body = { event_type: 'signup', email: `idem@${DOMAINS.good}`, ip: '100.64.90.1' };
    const first = await (await post(a!, body, { 'Idempotency-Key': 'scale-1' })).text();
    expect(await (await post(b!, body, { 'Idempotency-Key': 'scale-1' })).text()).to.equal(first);
    // Read-your-writes on the other instance.
    const stored = await fetch(`http://127.0.0.1:${b!.port}/v1/events/${JSON.parse(first).id}`, { headers: bearer(tenant.keys.sk_test) });
    expect(stored.status).to.equal(200);

    // Velocity is one count across both: signups from one ip alternate between them.
    const counts: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = (await (
        await post(i % 2 ? b! : a!, { event_type: 'signup', email: `v${i}@${DOMAINS.good}`, ip: '100.64.90.2' })
      ).json()) as { reasons: { code: string; detail?: { count: number } }[] };
      counts.push(res.reasons.find((r) => r.code === 'velocity_ip_signups')?.detail?.count ?? 0);
    }
    expect(counts).to.deep.equal([0, 0, 0, 0, 0, 6, 7]);

    // The graph: an account linked through A is seen by a verdict on B.
    await post(a!, { event_type: 'signup', external_user_id: 'scale_s1', ip: '100.64.90.3', identity: { phone: '+15559000001' } });
    await linked();
    const second = (await (
      await post(b!, { event_type: 'signup', external_user_id: 'scale_s2', ip: '100.64.90.4', identity: { phone: '+15559000001' } })
    ).json()) as { reasons: { code: string; detail?: Record<string, number> }[] };
    expect(second.reasons.find((r: { code: string }) => r.code === 'identity_cluster')?.detail).to.include({ linked_accounts: 2 });

    // The worker (the only process running job workers) delivers the webhook of a resolution.
    const receiver = await startHttpStandIn(() => ({ status: 200 }));
    try {
      const set = await doorman(
        ['webhook', 'set', '--tenant', tenant.tenantId, '--mode', 'test', '--url', `${receiver.url}/hook`, '--json'],
        { WEBHOOK_ALLOW_PRIVATE: 'true' },
      );
      const { secret } = JSON.parse(set.stdout);
      const review = (await (
        await post(b!, { event_type: 'signup', external_user_id: 'scale_tor', email: `t@${DOMAINS.good}`, ip: IPS.tor })
      ).json()) as { id: string; verdict: string };
      expect(review.verdict).to.equal('review');
      const resolved = await doorman([
        'review',
        'resolve',
        review.id,
        '--tenant',
        tenant.tenantId,
        '--mode',
        'test',
        '--resolution',
        'denied',
        '--json',
      ]);
      expect(resolved.code, resolved.stderr).to.equal(0);
      const [delivery] = await receiver.waitForRequests(1, 30_000);
      expect(JSON.parse(delivery!.body)).to.include({ type: 'review.resolved', event_id: review.id, resolution: 'denied' });
      // The header may carry a signature per valid secret; the current one verifies.
      const signatures = String(delivery!.headers['service-signature']).split(' ');
      expect(await verify(secret, delivery!.body, signatures[0]!)).to.equal(true);
    } finally {
      await receiver.close();
    }

    // Kill the worker and A mid-flight: B takes their lanes and keeps linking.
    await worker.kill();
    await a!.kill();
    const afterDeaths = await post(b!, {
      event_type: 'signup',
      external_user_id: 'scale_s3',
      ip: '100.64.90.5',
      identity: { phone: '+15559000001' },
    });
    expect(afterDeaths.status).to.equal(200);
    await linked();
    const { records } = await deps.graph.executeQuery(
      'MATCH (:Account {tenantId: $t, mode: "test", externalId: "scale_s3"})-[:IN]->(c:Cluster) RETURN c.accounts AS n',
      { t: tenant.tenantId },
    );
    expect(records[0]?.get('n')).to.equal(3);

    // The rate limit is one budget across instances (20 per minute; 13 requests so far on this key).
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await fetch(`http://127.0.0.1:${b!.port}/v1/events`, { headers: bearer(tenant.keys.sk_test) })).status);
    expect(statuses.filter((s) => s === 429).length).to.be.greaterThan(0);
    expect(statuses.filter((s) => s === 200).length).to.be.lessThan(8);
  });
});
