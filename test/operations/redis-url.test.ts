// REDIS_URL's three forms (src/redis/redis-url.ts), what configuration refuses, and the Sentinel form
// against a real Sentinel (the Cluster form: redis-cluster.test.ts).
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';
import { parseRedisUrl } from '../../src/redis/redis-url.js';
import request from 'supertest';
import { bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { startRedisSentinel } from '../support/redis-sentinel.js';
import { aSignup, verdictHarness } from '../support/verdict-harness.js';

describe('REDIS_URL forms', () => {
  it('reads one server, Sentinel and Cluster URLs', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379/2')).to.deep.equal({ kind: 'single', url: 'redis://127.0.0.1:6379/2' });
    expect(parseRedisUrl('redis+sentinel://:s3cret@s1:26379,s2,[::1]:26380/mymaster/3?sentinelPassword=sp')).to.deep.equal({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'mymaster',
      db: 3,
      tls: false,
      password: 's3cret',
      sentinelPassword: 'sp',
    });
    expect(parseRedisUrl('rediss+cluster://app:pw@n1:7000,n2:7001,n3:7002')).to.deep.equal({
      kind: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
        { host: 'n3', port: 7002 },
      ],
      tls: true,
      username: 'app',
      password: 'pw',
    });
  });

  it("refuses a Sentinel URL without the primary's name, a Cluster URL with a database, and other schemes", () => {
    for (const [url, problem] of [
      ['redis+sentinel://s1:26379', /primary's name/],
      ['redis+cluster://n1:7000/2', /database 0 only/],
      ['memcached://x:11211', /expected redis/],
      ['redis+cluster://n1:99999', /out of range/],
    ] as const) {
      expect(() => parseRedisUrl(url)).to.throw(problem);
      expect(() => loadConfig({ REDIS_URL: url })).to.throw(ConfigError, /REDIS_URL/);
    }
  });
});

describe('REDIS_URL=redis+sentinel://…', function () {
  this.timeout(60_000);

  it('finds the primary through a real Sentinel and counts velocity there', async () => {
    const sentinel = await startRedisSentinel();
    try {
      const h = await verdictHarness({ REDIS_URL: sentinel.url });
      await until('the client to reach the primary', async () => (h.deps.redis.status === 'ready' ? true : undefined));
      const results = [];
      for (let i = 0; i < 7; i++)
        results.push(
          await request(h.app)
            .post('/v1/verdict')
            .set(bearer(h.tenant.keys.sk_test))
            .send(aSignup({ ip: '100.64.97.1' })),
        );
      expect(results.map((r) => r.status)).to.deep.equal(Array(7).fill(200));
      expect(results.map((r) => (r.body.reasons as { code: string }[]).some((x) => x.code === 'velocity_ip_signups'))).to.deep.equal([
        false,
        false,
        false,
        false,
        false,
        true,
        true,
      ]);
      expect((await request(h.app).get('/health')).body.checks.redis.status).to.equal('up');
    } finally {
      await sentinel.stop();
    }
  });
});
