// Contract §7/§8: 600 requests per key per fixed window, shared across instances through Redis.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { aClientIp, aTenant, bearer } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { startRedis, startServer, until } from '../support/processes.js';
import { aSignup, verdictHarness } from '../support/verdict-harness.js';

const deps = testDeps();

async function get(port: number, key: string): Promise<{ status: number; remaining: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/events?limit=1`, { headers: bearer(key) });
  await res.arrayBuffer();
  return { status: res.status, remaining: Number(res.headers.get('x-ratelimit-remaining')) };
}

describe('rate limiting', function () {
  this.timeout(120_000);

  it('lets exactly 600 requests of one key through two instances in a window, and counts down without repeats', async () => {
    const [a, b] = await Promise.all([startServer(), startServer()]);
    const tenant = await aTenant(deps);
    const results: { status: number; remaining: number }[] = [];
    // 700 requests, 20 at a time, alternating between the two processes.
    for (let batch = 0; batch < 35; batch++) {
      results.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => get(i % 2 ? a.port : b.port, tenant.keys.sk_test)))));
    }
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).to.have.length(600);
    expect(limited).to.have.length(100);
    const remaining = ok.map((r) => r.remaining).sort((x, y) => x - y);
    expect(new Set(remaining).size).to.equal(600);
    expect(remaining[0]).to.equal(0);
    expect(remaining[599]).to.equal(599);

    // The other mode's key and another tenant's key have budgets of their own.
    expect(await get(a.port, tenant.keys.sk_live)).to.deep.equal({ status: 200, remaining: 599 });
    const other = await aTenant(deps);
    expect(await get(b.port, other.keys.sk_test)).to.deep.equal({ status: 200, remaining: 599 });
    await Promise.all([a.stop(), b.stop()]);
  });

  it('answers 429 rate_limited with retry-after and x-ratelimit headers, and resets after the window', async () => {
    const app = createApp(testDeps({ RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_WINDOW_SECONDS: '1' }));
    const tenant = await aTenant(deps);
    const first = await request(app).get('/v1/events').set(bearer(tenant.keys.sk_test));
    expect(first.headers['x-ratelimit-limit']).to.equal('2');
    expect(first.headers['x-ratelimit-remaining']).to.equal('1');
    expect(Number(first.headers['x-ratelimit-reset'])).to.be.within(0, 1);
    await request(app).get('/v1/events').set(bearer(tenant.keys.sk_test)).expect(200);
    const limited = await request(app).get('/v1/events').set(bearer(tenant.keys.sk_test));
    expect(limited.status).to.equal(429);
    expect(limited.body.error).to.equal('rate_limited');
    expect(limited.body.message).to.be.a('string');
    expect(limited.headers['retry-after']).to.equal('1');
    expect(limited.headers['x-ratelimit-remaining']).to.equal('0');
    await until(
      'the window to reset',
      async () => ((await request(app).get('/v1/events').set(bearer(tenant.keys.sk_test))).status === 200 ? true : undefined),
      5000,
    );
  });

  it('limits a flood of garbage keys per client IP without touching a real key from that IP', async () => {
    const app = createApp(testDeps({ RATE_LIMIT_PER_MINUTE: '20', TRUST_PROXY: 'loopback' }));
    const tenant = await aTenant(deps);
    const ip = aClientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await request(app)
        .get('/v1/events')
        .set('X-Forwarded-For', ip)
        .set(bearer(`sk_live_garbage${i}`));
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 401)).to.have.length(20);
    expect(statuses.filter((s) => s === 429)).to.have.length(5);
    const real = await request(app).get('/v1/events').set('X-Forwarded-For', ip).set(bearer(tenant.keys.sk_test));
    expect(real.status).to.equal(200);
    expect(real.headers['x-ratelimit-remaining']).to.equal('19');
    // Another client IP behind the same proxy has its own bucket.
    const otherIp = await request(app).get('/v1/events').set('X-Forwarded-For', aClientIp()).set(bearer('nonsense'));
    expect(otherIp.status).to.equal(401);
  });

  it('leaves no trace of a rate-limited verdict: no event, no velocity, no idempotency record', async () => {
    const h = await verdictHarness({ RATE_LIMIT_PER_MINUTE: '2' });
    const signup = (i: number) => aSignup({ ip: '100.64.95.1', email: `rl${i}@shop-mail.com` });
    expect((await h.verdict(signup(1))).status).to.equal(200);
    expect((await h.verdict(signup(2))).status).to.equal(200);
    const limited = await h.verdict(signup(3), { 'Idempotency-Key': 'limited-attempt' });
    expect(limited.status).to.equal(429);
    const { rows } = await h.deps.db.query(
      `SELECT (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events,
              (SELECT count(*)::int FROM idempotency_keys WHERE tenant_id = $1) AS keys`,
      [h.tenant.tenantId],
    );
    expect(rows[0]).to.deep.equal({ events: 2, keys: 0 });
    // Velocity saw the two accepted signups and this one; the limited one was never counted.
    const fresh = createApp({ ...h.deps, config: { ...h.deps.config, rateLimitPerMinute: 600 } });
    const next = await request(fresh).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test)).send(signup(4));
    const stored = await h.deps.db.query('SELECT signals FROM events WHERE id = $1', [next.body.id]);
    expect(stored.rows[0].signals.velocity.ipSignups).to.equal(3);
  });

  it('never meters /health', async () => {
    const app = createApp(testDeps({ RATE_LIMIT_PER_MINUTE: '1' }));
    for (let i = 0; i < 3; i++) {
      const res = await request(app).get('/health');
      expect(res.status).to.equal(200);
      expect(res.headers['x-ratelimit-limit']).to.equal(undefined);
    }
  });

  it('keeps serving, limited per instance in memory, while Redis is down', async () => {
    const redis = await startRedis();
    const deps2 = testDeps({ REDIS_URL: `redis://127.0.0.1:${redis.port}`, RATE_LIMIT_PER_MINUTE: '3' });
    const app = createApp(deps2);
    const tenant = await aTenant(deps);
    await until('redis client ready', async () => (deps2.redis.status === 'ready' ? true : undefined));
    await request(app).get('/v1/events').set(bearer(tenant.keys.sk_test)).expect(200);
    await redis.stop();
    await until('redis client to notice', async () => (deps2.redis.status !== 'ready' ? true : undefined));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(app).get('/v1/events').set(bearer(tenant.keys.sk_test))).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
  });
});
