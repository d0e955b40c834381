// The TypeScript client against a real Doorman whose stores really fail (a TCP fault proxy in
// front of each): a verdict decided without the graph, or without Redis's velocity counters,
// says so in `degraded` (from the `partial_enrichment` / `timeout_failopen` reasons), and ping()
// reports the store that is down instead of throwing; once healed, both are clean again.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { doormanClient, type DoormanClient, type Screened } from '../../clients/typescript/dist/doorman-client.js';
import { aTenant } from '../support/fixtures.js';
import { startFaultStack, type FaultStack, type Store } from '../support/fault-stack.js';
import { freePort, until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { FAULT_ENV } from './fault-env.js';

describe('faults: what the client says about a degraded Doorman', function () {
  this.timeout(120_000);
  let stack: FaultStack;
  let doorman: DoormanClient;

  before(async () => {
    stack = await startFaultStack('client');
    const env = { ...FAULT_ENV, DNS_SERVERS: `127.0.0.1:${await freePort()}` };
    const api = await stack.startApi(env);
    const tenant = await aTenant(testDeps());
    doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: `http://127.0.0.1:${api.port}`, screenTimeoutMs: 5000 });
  });
  afterEach(async () => {
    await stack.heal();
    await until('health back', async () => ((await doorman.ping()).status === 'ok' ? true : undefined), 30_000);
  });
  after(() => stack?.close());

  // A signup with no email (no DNS to wait for) that makes a graph link and counts velocity.
  const screen = async (): Promise<Screened> => {
    const result = await doorman.screen({
      event_type: 'signup',
      ip: '100.67.1.1',
      external_user_id: `u_${randomUUID().slice(0, 8)}`,
      identity: { phone: `+1555${randomUUID().slice(0, 6)}` },
    });
    if (result.failedOpen) expect.fail(`the client failed open: ${result.error.message}`);
    return result;
  };

  for (const [store, source] of [
    ['neo4j', 'graph'],
    ['redis', 'velocity'],
  ] as Array<[Store, string]>) {
    it(`names ${source} in degraded while ${store} is down, and ping() reports ${store} down`, async () => {
      expect((await screen()).degraded, 'healthy first').to.deep.equal([]);
      await stack.down(store);
      const degraded = await screen();
      expect(degraded.degraded).to.include(source);
      const missing = degraded.reasons.filter((r) => r.code === 'partial_enrichment' || r.code === 'timeout_failopen');
      expect(missing.flatMap((r) => String(r.detail?.sources).split(','))).to.include(source);
      const ping = await doorman.ping();
      expect(ping.status).to.equal('unavailable');
      expect(ping.checks[store].status).to.equal('down');
      await stack.up(store);
      await until(`${store} back in verdicts`, async () => ((await screen()).degraded.length === 0 ? true : undefined), 30_000);
    });
  }
});
