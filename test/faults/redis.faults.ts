// Redis behind a fault proxy: slow, reset mid-request, stalled, down then up. The contract:
// verdicts answer 200 without velocity signals, stating them as missing; the rate limit stays in
// force through the per-instance in-memory insurance limiter; /health is 503 while Redis cannot
// answer; once it is back, velocity is counted again.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aTenant } from '../support/fixtures.js';
import { api, call, missingSources, reasonCodes, type ApiResponse } from '../support/api-client.js';
import { startFaultStack, type FaultStack } from '../support/fault-stack.js';
import { freePort, until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { FAULT_ENV } from './fault-env.js';

const deps = testDeps();
// Low enough to reach in a test, high enough for each test's own verdicts (every test has its own tenant).
const RATE_LIMIT = 12;
const DEADLINE_MS = Number(FAULT_ENV.SIGNAL_DEADLINE_MS);
// The rate limiter waits up to REDIS_COMMAND_TIMEOUT_MS before its insurance takes over.
const COMMAND_TIMEOUT_MS = 500;
const MARGIN_MS = 700;

describe('faults: Redis', function () {
  this.timeout(120_000);
  let stack: FaultStack;
  let base: string;
  let ipCounter = 0;
  const signupFrom = (ip: string) => ({ event_type: 'signup', ip, external_user_id: `u_${randomUUID().slice(0, 8)}` });
  const freshIp = () => `100.68.0.${(ipCounter += 1)}`;
  const newClient = async () => api(base, (await aTenant(deps)).keys.sk_test);

  before(async () => {
    stack = await startFaultStack('redis');
    const env = {
      ...FAULT_ENV,
      DNS_SERVERS: `127.0.0.1:${await freePort()}`,
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    };
    base = `http://127.0.0.1:${(await stack.startApi(env)).port}`;
    await stack.startWorker(env);
  });
  afterEach(async () => {
    await stack.heal();
    await until('health back', async () => ((await call(base, 'GET', '/health')).status === 200 ? true : undefined), 30_000);
  });
  after(() => stack?.close());

  function expectVelocityMissing(res: ApiResponse) {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const missing = [...missingSources(res, 'timeout_failopen'), ...missingSources(res, 'partial_enrichment')];
    expect(missing, JSON.stringify(res.body.reasons)).to.include('velocity');
    expect(reasonCodes(res)).not.to.include('velocity_ip_signups');
    expect(res.ms).to.be.below(COMMAND_TIMEOUT_MS + DEADLINE_MS + MARGIN_MS);
  }

  // A fresh key gets exactly RATE_LIMIT requests, then 429 rate_limited: the insurance limiter.
  async function expectRateLimitInForce() {
    const { keys } = await aTenant(deps);
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMIT; i++) statuses.push((await call(base, 'GET', '/v1/events?limit=1', { key: keys.sk_test })).status);
    expect(
      statuses.slice(0, RATE_LIMIT).every((s) => s === 200),
      statuses.join(' '),
    ).to.equal(true);
    expect(statuses[RATE_LIMIT]).to.equal(429);
  }

  async function expectHealth503() {
    const health = await call(base, 'GET', '/health', { timeoutMs: 10_000 });
    expect(health.status).to.equal(503);
    expect(health.body.checks.redis.status).to.equal('down');
  }

  // While Redis is gone: three verdicts in time without velocity, the rate limit in force, /health
  // 503. Then `restore` brings it back, /health recovers and velocity counts again.
  async function expectDegradedThenRecovered(client: Awaited<ReturnType<typeof newClient>>, restore: () => Promise<unknown>) {
    for (let i = 0; i < 3; i++) expectVelocityMissing(await client.verdict(signupFrom(freshIp())));
    await expectRateLimitInForce();
    await expectHealth503();
    await restore();
    await until('health back', async () => ((await call(base, 'GET', '/health')).status === 200 ? true : undefined), 30_000);
    await expectVelocityCountedAgain();
  }

  // Once Redis is back, velocity counts again: the sixth signup from one ip is flagged.
  async function expectVelocityCountedAgain() {
    const client = await newClient();
    const ip = freshIp();
    let last: ApiResponse | undefined;
    for (let i = 0; i < 6; i++) last = await client.verdict(signupFrom(ip));
    expect(reasonCodes(last!)).to.include('velocity_ip_signups');
  }

  it('slow beyond the signal deadline: 200 in time with velocity stated as missing, the rate limit in force', async () => {
    const client = await newClient();
    await stack.latency('redis', 1000);
    for (let i = 0; i < 3; i++) expectVelocityMissing(await client.verdict(signupFrom(freshIp())));
    await expectRateLimitInForce();
    await stack.heal();
    await expectVelocityCountedAgain();
  });

  it('connection reset mid-request: 200 without velocity, the rate limit in force, /health 503', async () => {
    const client = await newClient();
    await stack.latency('redis', 200);
    const inFlight = [client.verdict(signupFrom(freshIp())), client.verdict(signupFrom(freshIp()))];
    await new Promise((resolve) => setTimeout(resolve, 100));
    await stack.reset('redis');
    for (const res of await Promise.all(inFlight)) expect(res.status, JSON.stringify(res.body)).to.equal(200);
    await expectDegradedThenRecovered(client, () => stack.heal());
  });

  it('stalled: 200 in time without velocity, the rate limit in force, /health 503', async () => {
    const client = await newClient();
    await stack.stall('redis');
    await expectDegradedThenRecovered(client, () => stack.heal());
  });

  it('down, then up: 200 without velocity, the rate limit in force, /health 503; velocity counted again once back', async () => {
    const client = await newClient();
    await stack.down('redis');
    await expectDegradedThenRecovered(client, () => stack.up('redis'));
  });
});
