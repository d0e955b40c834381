// REDIS_URL=redis+cluster://…: against a real three-node Redis Cluster, velocity counts
// one by one under parallel requests (one Lua script, one slot per scope), the rate limit holds,
// keys of different scopes spread over the nodes, and /health sees the cluster.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { aTenant, bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup, standIns, verdictHarness } from '../support/verdict-harness.js';

describe('Redis Cluster (REDIS_URL=redis+cluster://…)', function () {
  this.timeout(120_000);
  let cluster: RedisCluster;
  before(async () => {
    cluster = await startRedisCluster(3);
  });
  after(async () => cluster?.stop());

  it('counts velocity one by one across the cluster, spreads scopes over the nodes, and reports healthy', async () => {
    const h = await verdictHarness({ REDIS_URL: cluster.url, RATE_LIMIT_PER_MINUTE: '1000' });
    await until('the cluster client to be ready', async () => (h.deps.redis.status === 'ready' ? true : undefined));
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        request(h.app)
          .post('/v1/verdict')
          .set(bearer(h.tenant.keys.sk_test))
          .send(aSignup({ ip: '100.64.80.1' })),
      ),
    );
    expect(results.map((r) => r.status)).to.deep.equal(Array(12).fill(200));
    const counts = results.map(
      (r) =>
        (r.body.reasons as { code: string; detail?: { count?: number } }[]).find((x) => x.code === 'velocity_ip_signups')?.detail?.count ??
        0,
    );
    expect(counts.filter((n) => n > 0).sort((a, b) => a - b)).to.deep.equal([6, 7, 8, 9, 10, 11, 12]);
    expect(results.every((r) => !JSON.stringify(r.body).includes('partial_enrichment'))).to.equal(true);

    // More scopes: their keys hash to other slots, on other nodes.
    for (let i = 0; i < 5; i++) {
      const t = await aTenant(h.deps);
      expect(
        (
          await request(h.app)
            .post('/v1/verdict')
            .set(bearer(t.keys.sk_test))
            .send(aSignup({ ip: `100.64.81.${i + 1}` }))
        ).status,
      ).to.equal(200);
    }
    const perNode = await Promise.all(
      cluster.ports.map(async (port) => {
        const node = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
        await node.connect();
        try {
          const keys = await node.keys('*');
          const slots = await Promise.all(
            keys.filter((k) => k.startsWith(`vel:{${h.tenant.tenantId}:test}`)).map((k) => node.cluster('KEYSLOT', k)),
          );
          return { keys: keys.length, scopeSlots: new Set(slots) };
        } finally {
          node.disconnect();
        }
      }),
    );
    expect(perNode.filter((n) => n.keys > 0).length, 'nodes holding keys').to.be.at.least(2);
    // Every velocity key of one scope is in one slot (the script's keys always are).
    expect(new Set(perNode.flatMap((n) => [...n.scopeSlots])).size).to.equal(1);

    const health = await request(h.app).get('/health');
    expect(health.status).to.equal(200);
    expect(health.body.checks.redis.status).to.equal('up');
  });

  it('holds the rate limit across the cluster', async () => {
    const { dns, intelDir } = await standIns();
    const deps = testDeps({ REDIS_URL: cluster.url, RATE_LIMIT_PER_MINUTE: '5', DNS_SERVERS: dns.server, INTEL_DIR: intelDir });
    await until('the cluster client to be ready', async () => (deps.redis.status === 'ready' ? true : undefined));
    const app = createApp(deps);
    const tenant = await aTenant(deps);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await request(app).get('/v1/events').set(bearer(tenant.keys.sk_test))).status);
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429, 429]);
  });
});
