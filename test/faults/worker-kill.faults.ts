// The worker killed with SIGKILL while it applies graph links (after a Neo4j outage left them
// pending): once a worker runs again, every answered event's link is applied, and none twice
// in effect (each household's cluster counts its accounts exactly once).
// Webhook deliveries are not covered here: webhooks arrive with their own issue.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { api, missingSources } from '../support/api-client.js';
import { startFaultStack, type FaultStack } from '../support/fault-stack.js';
import { graphEventIds } from '../support/graph-facts.js';
import { freePort, until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { FAULT_ENV } from './fault-env.js';

const deps = testDeps();
const HOUSEHOLDS = 8;
const MEMBERS = 3;

describe('faults: worker killed during graph writes', function () {
  this.timeout(240_000);
  let stack: FaultStack;
  let tenant: TestTenant;
  let client: ReturnType<typeof api>;
  let env: Record<string, string>;

  before(async () => {
    stack = await startFaultStack('worker-kill');
    env = { ...FAULT_ENV, DNS_SERVERS: `127.0.0.1:${await freePort()}` };
    client = api(`http://127.0.0.1:${(await stack.startApi(env)).port}`, (tenant = await aTenant(deps)).keys.sk_test);
  });
  after(() => stack?.close());

  it('applies every pending link after a restart, and none twice', async () => {
    const first = await stack.startWorker(env);
    await stack.down('neo4j');
    const households = Array.from({ length: HOUSEHOLDS }, () => {
      const phone = `+1555${randomUUID().slice(0, 8)}`;
      return Array.from({ length: MEMBERS }, () => ({
        event_type: 'signup',
        ip: '100.69.0.1',
        external_user_id: `u_${randomUUID().slice(0, 8)}`,
        identity: { phone },
      }));
    });
    const answered: string[] = [];
    for (const body of households.flat()) {
      const res = await client.verdict(body);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect([...missingSources(res, 'partial_enrichment'), ...missingSources(res, 'timeout_failopen')]).to.include('graph');
      answered.push(res.body.id as string);
    }
    // Neo4j back but slow, so applying the links takes a while; kill the worker once it has begun.
    await stack.latency('neo4j', 150);
    await stack.up('neo4j');
    const appliedAtKill = await until(
      'the worker to start applying links',
      async () => {
        const inGraph = new Set(await graphEventIds(deps, tenant.tenantId));
        const applied = answered.filter((id) => inGraph.has(id)).length;
        return applied > 0 ? applied : undefined;
      },
      120_000,
    );
    await first.kill('SIGKILL');
    process.stdout.write(`      (worker killed with ${appliedAtKill} of ${answered.length} links applied)\n`);

    await stack.startWorker(env);
    await until(
      'every answered event linked after the restart',
      async () => {
        const inGraph = new Set(await graphEventIds(deps, tenant.tenantId));
        const missing = answered.filter((id) => !inGraph.has(id));
        if (missing.length > 0) throw new Error(`${missing.length} of ${answered.length} not linked yet`);
        return true;
      },
      150_000,
    );
    await stack.heal();

    // Nothing twice in effect: each household is one cluster of exactly its accounts.
    for (const members of households) {
      const res = await client.verdict({ ...members[0], event_type: 'login' });
      const cluster = (res.body.reasons as { code: string; detail?: { linked_accounts?: number } }[]).find(
        (r) => r.code === 'identity_cluster',
      );
      expect(cluster?.detail?.linked_accounts, JSON.stringify(res.body)).to.equal(MEMBERS);
    }
  });
});
