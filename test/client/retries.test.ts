// The client's retries against real faults of a real `doorman serve` child: a 429 from the real
// rate limiter (retried after its retry-after), and a 500 from a server whose Postgres connection
// is cut by a TCP proxy (retried once it is restored). Every retry carries the same
// Idempotency-Key and the same body bytes, and exactly one event is stored.
import { expect } from 'chai';
import { doormanClient, type FailedOpen, type RetryInfo } from '../../clients/typescript/dist/doorman-client.js';
import { serverEnv } from '../support/client-server.js';
import { aTenant, bearer, type TestTenant } from '../support/fixtures.js';
import { type Child, startServer } from '../support/processes.js';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { testDeps, testEnv } from '../support/test-deps.js';
import { aSignup } from '../support/verdict-harness.js';

const storedEvents = async (tenant: TestTenant): Promise<number> => {
  const { rows } = await testDeps().db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [tenant.tenantId]);
  return rows[0].n;
};

const sameRequestEveryTime = (exchanges: RecordingProxy['exchanges']) => {
  expect(new Set(exchanges.map((e) => e.headers['idempotency-key'])).size, 'one Idempotency-Key').to.equal(1);
  expect(exchanges[0]!.headers['idempotency-key']).to.be.a('string').and.not.equal('');
  for (const e of exchanges) expect(e.body.equals(exchanges[0]!.body), 'the same bytes').to.equal(true);
};

describe('client: retries against real faults', function () {
  this.timeout(90_000);
  let limited: Child;
  let limitedProxy: RecordingProxy;
  let postgres: TcpFaultProxy;
  let cutOff: Child;
  let cutOffProxy: RecordingProxy;

  before(async () => {
    const env = await serverEnv();
    const database = new URL(String(testEnv.DATABASE_URL));
    postgres = await startTcpFaultProxy(Number(database.port || 5432), database.hostname === 'localhost' ? '127.0.0.1' : database.hostname);
    database.hostname = '127.0.0.1';
    database.port = String(postgres.port);
    // One request per key per 2-second window: the window opens at a key's first request.
    [limited, cutOff] = await Promise.all([
      startServer({ ...env, RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_WINDOW_SECONDS: '2' }),
      startServer({ ...env, DATABASE_URL: database.toString(), LOG_LEVEL: 'fatal' }),
    ]);
    limitedProxy = await startRecordingProxy(`http://127.0.0.1:${limited.port}`);
    cutOffProxy = await startRecordingProxy(`http://127.0.0.1:${cutOff.port}`);
  });
  after(async () => {
    await Promise.all([limitedProxy?.close(), cutOffProxy?.close()]);
    await Promise.all([limited?.stop(), cutOff?.stop()]);
    await postgres?.close();
  });

  // Spends the key's one request of the window, so the next is refused with retry-after.
  const spendTheWindow = async (tenant: TestTenant) => {
    const res = await fetch(`http://127.0.0.1:${limited.port}/v1/events?limit=1`, { headers: bearer(tenant.keys.sk_test) });
    expect(res.status).to.equal(200);
  };

  it('retries a 429 after its retry-after with the same key and bytes, and stores one event', async () => {
    const tenant = await aTenant(testDeps());
    const retries: RetryInfo[] = [];
    const doorman = doormanClient({
      secretKey: tenant.keys.sk_test,
      baseUrl: limitedProxy.url,
      screenTimeoutMs: 6000,
      onRetry: (r) => retries.push(r),
    });
    await spendTheWindow(tenant);
    const started = Date.now();
    const result = await doorman.screen(aSignup() as never);
    if (result.failedOpen) expect.fail(`failed open: ${result.error.message}`);
    const sent = limitedProxy.exchanges.filter(
      (e) => e.path === '/v1/verdict' && e.headers.authorization === `Bearer ${tenant.keys.sk_test}`,
    );
    expect(sent.map((e) => e.status)).to.deep.equal([429, 200]);
    sameRequestEveryTime(sent);
    expect(retries.map((r) => [r.error.status, r.error.code, r.delayMs])).to.deep.equal([[429, 'rate_limited', 2000]]);
    expect(Date.now() - started).to.be.at.least(2000);
    expect(await storedEvents(tenant)).to.equal(1);
  });

  it('does not wait out a retry-after longer than the budget: fails open as rate_limited at once', async () => {
    const tenant = await aTenant(testDeps());
    const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: limitedProxy.url, screenTimeoutMs: 800 });
    await spendTheWindow(tenant);
    const started = Date.now();
    const result = await doorman.screen(aSignup() as never);
    expect(result).to.deep.include({ verdict: 'allow', failedOpen: true, reason: 'rate_limited' });
    expect((result as FailedOpen).error.retryAfterMs).to.equal(2000);
    expect(Date.now() - started).to.be.below(800);
    expect(await storedEvents(tenant)).to.equal(0);
  });

  it('retries a 500 from a server that lost Postgres, with the same key and bytes, until it is back: one event', async () => {
    const tenant = await aTenant(testDeps());
    const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: cutOffProxy.url, screenTimeoutMs: 20_000, maxRetries: 10 });
    // Postgres comes back as soon as the first 500 has been answered.
    cutOffProxy.onAnswer((e) => {
      if (e.path === '/v1/verdict' && e.status === 500) postgres.restore();
    });
    postgres.cut();
    const result = await doorman.screen(aSignup({ external_user_id: `usr_${Date.now()}` }) as never);
    if (result.failedOpen) expect.fail(`failed open: ${result.error.message}`);
    const sent = cutOffProxy.exchanges.filter((e) => e.path === '/v1/verdict');
    expect(sent[0]!.status).to.equal(500);
    expect(sent.at(-1)!.status).to.equal(200);
    expect(sent.slice(0, -1).every((e) => e.status === 500)).to.equal(true);
    sameRequestEveryTime(sent);
    expect(await storedEvents(tenant)).to.equal(1);
    const stored = await doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: cutOffProxy.url }).events.get(result.id);
    expect(stored.id).to.equal(result.id);
  });
});
