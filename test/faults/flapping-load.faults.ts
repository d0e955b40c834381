// Two API instances and one worker under 200 req/s while one store flaps (down 1.5 s, up 2 s).
// The contract: no acknowledged event is lost (every 200's event id is then readable with GET),
// and the only 5xx are the contract's 500 `internal` while Postgres is down; Neo4j and Redis
// flapping cost no 5xx at all. (Same-key retries after a Postgres failure, and every link
// applied after a Neo4j outage: postgres.faults.ts, neo4j.faults.ts.)
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { call } from '../support/api-client.js';
import { startFaultStack, type FaultStack, type Store } from '../support/fault-stack.js';
import { openLoop, type Sent } from '../support/open-loop.js';
import { freePort, until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { FAULT_ENV } from './fault-env.js';

const deps = testDeps();
const RATE = 200;
const SECONDS = 9;
// Outages start this far into the load and last DOWN_MS, UP_MS apart.
const DOWN_MS = 1500;
const UP_MS = 2000;
// A request that began just before the store came back may still fail on its way out.
const GRACE_MS = 1000;

describe('faults: two instances and a worker under load while a store flaps', function () {
  this.timeout(180_000);
  let stack: FaultStack;
  let bases: string[];

  before(async () => {
    stack = await startFaultStack('flapping');
    const env = { ...FAULT_ENV, DNS_SERVERS: `127.0.0.1:${await freePort()}`, PG_POOL_MAX: '20' };
    bases = (await Promise.all([stack.startApi(env), stack.startApi(env)])).map((api) => `http://127.0.0.1:${api.port}`);
    await stack.startWorker(env);
  });
  afterEach(async () => {
    await stack.heal();
    await until('health back', async () => ((await call(bases[0]!, 'GET', '/health')).status === 200 ? true : undefined), 30_000);
  });
  after(() => stack?.close());

  async function underLoad(store: Store, tenant: TestTenant): Promise<{ sent: Sent[]; outages: [number, number][] }> {
    const outages: [number, number][] = [];
    const flap = async () => {
      for (let at = UP_MS; at + DOWN_MS < SECONDS * 1000 - 1000; at += DOWN_MS + UP_MS) {
        await new Promise((resolve) => setTimeout(resolve, UP_MS));
        const down = Date.now();
        await stack.down(store);
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        await stack.up(store);
        outages.push([down, Date.now()]);
      }
    };
    const household = () => `+1555${randomUUID().slice(0, 6)}`;
    let phone = household();
    const { sent, achievedRate } = await openLoop({
      bases,
      apiKey: tenant.keys.sk_test,
      rate: RATE,
      seconds: SECONDS,
      during: flap,
      body: (i) => {
        if (i % 3 === 0) phone = household();
        return {
          event_type: 'signup',
          ip: `100.70.${(i >> 8) & 255}.${i & 255}`,
          external_user_id: `u_${randomUUID().slice(0, 8)}`,
          identity: { phone },
        };
      },
    });
    const counts = sent.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s.res.status]: (acc[s.res.status] ?? 0) + 1 }), {});
    process.stdout.write(
      `      (${store} flapping: ${sent.length} requests offered at ${RATE}/s, sent at ${achievedRate}/s, statuses ${JSON.stringify(counts)})\n`,
    );
    return { sent, outages };
  }

  // Every 200's event is readable with GET, from either instance.
  async function expectNothingLost(tenant: TestTenant, sent: Sent[]) {
    const ids = sent.filter((s) => s.res.status === 200).map((s) => s.res.body.id as string);
    const unreadable: string[] = [];
    for (let i = 0; i < ids.length; i += 50) {
      const page = await Promise.all(
        ids.slice(i, i + 50).map((id, j) => call(bases[j % 2]!, 'GET', `/v1/events/${id}`, { key: tenant.keys.sk_test })),
      );
      page.forEach((res, j) => {
        if (res.status !== 200) unreadable.push(`${ids[i + j]} (${res.status})`);
      });
    }
    expect(unreadable, 'acknowledged events that GET cannot read').to.deep.equal([]);
    return ids;
  }

  it('Postgres flapping: only 500 internal during the outages, no acknowledged event lost', async () => {
    const tenant = await aTenant(deps);
    const { sent, outages } = await underLoad('postgres', tenant);
    const during = (s: Sent) => outages.some(([down, up]) => s.res.startedAt <= up + GRACE_MS && s.endedAt >= down);
    const unexpected = sent.filter((s) => s.res.status !== 200 && !(s.res.status === 500 && s.res.body.error === 'internal' && during(s)));
    expect(unexpected.map((s) => `${s.res.status} ${JSON.stringify(s.res.body).slice(0, 200)}`)).to.deep.equal([]);
    expect(sent.filter((s) => s.res.status === 500).length, 'the outages were felt').to.be.above(0);
    await expectNothingLost(tenant, sent);
  });

  for (const store of ['neo4j', 'redis'] as const) {
    it(`${store} flapping: no 5xx at all, no acknowledged event lost`, async () => {
      const tenant = await aTenant(deps);
      const { sent } = await underLoad(store, tenant);
      expect(
        sent.filter((s) => s.res.status !== 200).map((s) => `${s.res.status} ${JSON.stringify(s.res.body).slice(0, 200)}`),
      ).to.deep.equal([]);
      await expectNothingLost(tenant, sent);
    });
  }
});
