// The client's configuration: checked when the client is made (key shape, URL shape, a port fetch
// refuses), and a call that can never work as configured (a host that does not resolve, a
// redirect, https to a plain-http port) reported at once as a configuration error, not retried,
// and failing open only when the client says so. ping() against the real server: health, the key,
// a wrong key, a wrong path.
import { expect } from 'chai';
import { doormanClient, DoormanError, type FailedOpen, type RetryInfo } from '../../clients/typescript/dist/doorman-client.js';
import { clientServer } from '../support/client-server.js';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup } from '../support/verdict-harness.js';

describe('client: configuration', function () {
  this.timeout(60_000);
  let tenant: TestTenant;
  let baseUrl: string;

  before(async () => {
    [baseUrl, tenant] = await Promise.all([clientServer().then((s) => s.url), aTenant(testDeps())]);
  });

  it('refuses a configuration that cannot work when the client is made, saying what is wrong', () => {
    const key = tenant.keys.sk_test;
    const cases: Array<[string, { secretKey: unknown; baseUrl: unknown; fetch?: typeof fetch }, RegExp]> = [
      ['an empty key (an unset variable)', { secretKey: '', baseUrl }, /secretKey is missing/],
      ['no key at all', { secretKey: undefined, baseUrl }, /secretKey is missing/],
      ['a publishable key', { secretKey: tenant.keys.pk_test, baseUrl }, /publishable key/],
      ['the prefix alone', { secretKey: 'sk_live_', baseUrl }, /only its prefix/],
      ['a key with a line break', { secretKey: `${key}\n`, baseUrl }, /line break/],
      ['a key of another kind', { secretKey: 'rk_test_abc', baseUrl }, /start sk_live_ or sk_test_/],
      ['an empty URL', { secretKey: key, baseUrl: '' }, /baseUrl is missing/],
      ['a URL without a scheme', { secretKey: key, baseUrl: 'doorman.internal:8080' }, /must be http or https/],
      ['a relative URL', { secretKey: key, baseUrl: '/doorman' }, /not an absolute URL/],
      ['another scheme', { secretKey: key, baseUrl: 'ftp://doorman.internal' }, /must be http or https, not ftp/],
      ['credentials in the URL', { secretKey: key, baseUrl: 'http://user:pw@127.0.0.1:8080' }, /credentials/],
      ['a query in the URL', { secretKey: key, baseUrl: `${baseUrl}?tenant=1` }, /query or a fragment/],
      ['a port fetch refuses', { secretKey: key, baseUrl: 'http://127.0.0.1:6000' }, /port 6000 .*bad port/],
    ];
    for (const [what, options, message] of cases) {
      expect(() => doormanClient(options as never), what).to.throw(TypeError, message);
    }
    // Another fetch may connect anywhere; a path prefix and a trailing slash are fine.
    expect(() => doormanClient({ secretKey: key, baseUrl: 'http://127.0.0.1:6000', fetch })).to.not.throw();
    expect(() => doormanClient({ secretKey: key, baseUrl: `${baseUrl}/doorman/` })).to.not.throw();
  });

  it('reports a host that does not resolve as a configuration error at once, without retrying; fails open on it only when told to', async () => {
    const retries: RetryInfo[] = [];
    const options = { secretKey: tenant.keys.sk_test, baseUrl: 'http://doorman.invalid:8080', onRetry: (r: RetryInfo) => retries.push(r) };
    const strict = doormanClient(options);
    const thrown = await strict.screen(aSignup() as never).then(
      () => expect.fail('expected a throw'),
      (err: unknown) => err as DoormanError,
    );
    expect(thrown).to.be.instanceOf(DoormanError);
    expect([thrown.kind, thrown.retryable, thrown.attempts]).to.deep.equal(['configuration', false, 1]);
    expect(thrown.message).to.match(/does not resolve .*ENOTFOUND/);
    const pinged = await strict.ping().catch((err: DoormanError) => err);
    expect((pinged as DoormanError).kind).to.equal('configuration');

    const lenient = doormanClient({ ...options, failOpenOnConfigurationError: true });
    const result = await lenient.screen(aSignup() as never);
    expect(result).to.deep.include({ verdict: 'allow', failedOpen: true, reason: 'configuration_error', reasons: [] });
    expect((result as FailedOpen).error.attempts).to.equal(1);
    // failOpen: false still throws it.
    const strictCall = await lenient.screen(aSignup() as never, { failOpen: false }).catch((err: DoormanError) => err);
    expect((strictCall as DoormanError).kind).to.equal('configuration');
    expect(retries).to.deep.equal([]);
  });

  it('reports a redirect and https to a plain-http port as configuration errors; never follows the redirect with the key', async () => {
    const target = await startHttpStandIn(() => ({
      status: 200,
      body: { id: 'evt_elsewhere', verdict: 'allow', reasons: [], policy_version: '2025-01-01.1' },
    }));
    const redirecting = await startHttpStandIn(() => ({ status: 308, headers: { location: `${target.url}/v1/verdict` } }));
    try {
      const redirected = await doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: redirecting.url })
        .screen(aSignup() as never)
        .catch((err: DoormanError) => err);
      expect((redirected as DoormanError).kind).to.equal('configuration');
      expect((redirected as DoormanError).message).to.match(/redirect/);
      expect([redirecting.requests.length, target.requests.length]).to.deep.equal([1, 0]);
    } finally {
      await Promise.all([target.close(), redirecting.close()]);
    }
    const tls = await doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: baseUrl.replace('http:', 'https:') })
      .screen(aSignup() as never)
      .catch((err: DoormanError) => err);
    expect([(tls as DoormanError).kind, (tls as DoormanError).attempts]).to.deep.equal(['configuration', 1]);
    expect((tls as DoormanError).message).to.match(/plain http/);
  });

  it('still retries what may pass (a refused connection) and fails open on it as network_error', async () => {
    const retries: RetryInfo[] = [];
    const closed = await startHttpStandIn();
    const url = closed.url;
    await closed.close();
    const result = await doormanClient({
      secretKey: tenant.keys.sk_test,
      baseUrl: url,
      screenTimeoutMs: 1500,
      onRetry: (r) => retries.push(r),
    }).screen(aSignup() as never);
    expect(result).to.deep.include({ failedOpen: true, reason: 'network_error' });
    expect(retries.length).to.equal(2);
  });

  it('ping() checks the server, its stores and the key without screening anything', async () => {
    const before = (await testDeps().db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [tenant.tenantId])).rows[0].n;
    const ping = await doormanClient({ secretKey: tenant.keys.sk_test, baseUrl }).ping();
    expect([ping.status, ping.mode]).to.deep.equal(['ok', 'test']);
    expect(Object.keys(ping.checks).sort()).to.deep.equal(['neo4j', 'postgres', 'redis']);
    for (const check of Object.values(ping.checks)) expect(check.status).to.equal('up');
    expect(ping.latencyMs).to.be.a('number').and.at.least(0);
    const after = (await testDeps().db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [tenant.tenantId])).rows[0].n;
    expect(after).to.equal(before);

    const unknownKey = await doormanClient({ secretKey: `sk_live_${'0'.repeat(32)}`, baseUrl })
      .ping()
      .catch((err: DoormanError) => err);
    expect([(unknownKey as DoormanError).status, (unknownKey as DoormanError).code, (unknownKey as DoormanError).attempts]).to.deep.equal([
      401,
      'unauthorized',
      1,
    ]);
    const wrongPath = await doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: `${baseUrl}/doorman` })
      .ping()
      .catch((err: DoormanError) => err);
    expect([(wrongPath as DoormanError).status, (wrongPath as DoormanError).code]).to.deep.equal([404, 'not_found']);
  });

  it("ping() refuses an answer that is not a Doorman's health report", async () => {
    const other = await startHttpStandIn((req) =>
      req.path.startsWith('/health')
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: { healthy: true } }
        : { status: 200, body: { events: [] } },
    );
    try {
      const answer = await doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: other.url })
        .ping()
        .catch((err: DoormanError) => err);
      expect((answer as DoormanError).kind).to.equal('invalid_response');
      expect((answer as DoormanError).message).to.match(/is baseUrl a Doorman/);
    } finally {
      await other.close();
    }
  });
});
