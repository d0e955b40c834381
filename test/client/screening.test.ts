// The TypeScript client's screen() against a real `doorman serve` child: typed verdicts, the
// Idempotency-Key kept across retries and honoured by the server, 4xx never retried, and fail-open
// on a server that accepts connections and never answers or is not there at all. A stand-in
// plays a later Doorman whose codes this client does not know.
import { expect } from 'chai';
import net from 'node:net';
import request from 'supertest';
import { doormanClient, DoormanError, type FailedOpen } from '../../clients/typescript/dist/doorman-client.js';
import { signupApp } from '../../clients/typescript/examples/signup-screening.js';
import { changeList } from '../../src/lists/manage-lists.js';
import { clientServer } from '../support/client-server.js';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { freePort } from '../support/processes.js';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup, DOMAINS, IPS } from '../support/verdict-harness.js';

describe('client: screen()', function () {
  this.timeout(60_000);
  let tenant: TestTenant;
  let proxy: RecordingProxy;
  let baseUrl: string;

  before(async () => {
    const server = await clientServer();
    proxy = await startRecordingProxy(server.url);
    baseUrl = proxy.url;
    tenant = await aTenant(testDeps());
  });
  after(() => proxy.close());

  const verdictCalls = () => proxy.exchanges.filter((e) => e.path === '/v1/verdict');

  it('answers a typed verdict, sends a fresh Idempotency-Key per call and the event as JSON', async () => {
    const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl });
    const before = verdictCalls().length;
    const event = aSignup({ external_user_id: 'usr_1', ip: IPS.proxy }) as never;
    const first = await doorman.screen(event);
    const second = await doorman.screen(event);
    if (first.failedOpen || second.failedOpen) expect.fail('did not expect to fail open');
    expect(first.verdict).to.equal('review');
    expect(first.reasons.map((r) => r.code)).to.include('proxy_ip');
    expect(first.policy_version).to.match(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    expect(first.degraded, 'every signal answered').to.deep.equal([]);
    expect(first.id).to.not.equal(second.id);
    const sent = verdictCalls().slice(before);
    expect(sent.map((e) => e.headers['idempotency-key'])).to.deep.equal([first.idempotencyKey, second.idempotencyKey]);
    expect(first.idempotencyKey).to.not.equal(second.idempotencyKey);
    expect(sent[0]!.headers.authorization).to.equal(`Bearer ${tenant.keys.sk_test}`);
    expect(sent[0]!.headers['content-type']).to.equal('application/json');
    expect(JSON.parse(sent[0]!.body.toString('utf8'))).to.deep.equal(event);
  });

  it('replays the original verdict for the same key and the same event; a changed event is 409 and not retried', async () => {
    const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl });
    const event = aSignup() as never;
    const first = await doorman.screen(event, { idempotencyKey: `signup-${Date.now()}-attempt-1` });
    const again = await doorman.screen(event, { idempotencyKey: first.idempotencyKey });
    expect(again.failedOpen ? undefined : again.id).to.equal(first.failedOpen ? 'x' : first.id);
    const before = verdictCalls().length;
    const error = await doorman
      .screen({ ...(event as object), user_agent: 'changed' } as never, { idempotencyKey: first.idempotencyKey })
      .then(
        () => expect.fail('expected a 409'),
        (err: unknown) => err as DoormanError,
      );
    expect(error).to.be.instanceOf(DoormanError);
    expect([error.status, error.code, error.retryable, error.attempts]).to.deep.equal([409, 'idempotency_conflict', false, 1]);
    expect(verdictCalls().length - before).to.equal(1);
  });

  it("throws the caller's mistakes instead of failing open: 400 with the issues, 401, a bad key", async () => {
    const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl });
    const invalid = await doorman.screen({ event_type: 'signup', email: 'a@b.example' } as never).catch((err: DoormanError) => err);
    expect(invalid).to.be.instanceOf(DoormanError);
    expect((invalid as DoormanError).code).to.equal('invalid_request');
    expect((invalid as DoormanError).issues).to.deep.include({ path: '/ip', message: 'is required' });
    const stranger = doormanClient({ secretKey: `sk_test_${'0'.repeat(32)}`, baseUrl });
    const refused = await stranger.screen(aSignup() as never).catch((err: DoormanError) => err);
    expect((refused as DoormanError).status).to.equal(401);
    expect((refused as DoormanError).attempts).to.equal(1);
    expect(() => doormanClient({ secretKey: tenant.keys.pk_test, baseUrl })).to.throw(TypeError, /secret key/);
    // Doorman would ignore such a key as if absent, and retries would silently stop being safe.
    for (const idempotencyKey of ['', 'k'.repeat(256)]) {
      const refusedKey = await doorman.screen(aSignup() as never, { idempotencyKey }).catch((err: unknown) => err);
      expect(refusedKey)
        .to.be.instanceOf(TypeError)
        .with.property('message')
        .that.matches(/idempotencyKey/);
    }
  });

  it('fails open, marked, on a server that accepts the connection and never answers', async () => {
    const held = new Set<net.Socket>();
    const silent = net.createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    try {
      const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: url, screenTimeoutMs: 300 });
      const started = Date.now();
      const result = await doorman.screen(aSignup() as never);
      const took = Date.now() - started;
      expect(result).to.deep.include({ verdict: 'allow', failedOpen: true, reason: 'timeout', reasons: [] });
      expect((result as FailedOpen).error.kind).to.equal('timeout');
      expect(took).to.be.within(250, 2000);
      expect(held.size, 'the client did connect').to.be.greaterThan(0);
      const strict = await doorman.screen(aSignup() as never, { failOpen: false }).catch((err: DoormanError) => err);
      expect((strict as DoormanError).kind).to.equal('timeout');
      // ping() gives up after its own 3 s budget (not the other calls' 10 s), or the one it is given.
      const timed = async (call: () => Promise<unknown>) => {
        const at = Date.now();
        const err = await call().then(
          () => expect.fail('answered'),
          (e: unknown) => e,
        );
        return { kind: (err as DoormanError).kind, ms: Date.now() - at };
      };
      const ping = await timed(() => doorman.ping());
      expect(ping.kind).to.equal('timeout');
      expect(ping.ms).to.be.within(2900, 8000);
      const quick = await timed(() => doorman.ping({ timeoutMs: 300 }));
      expect(quick.kind).to.equal('timeout');
      expect(quick.ms).to.be.within(250, 2500);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('retries a refused connection within the budget, then fails open as network_error', async () => {
    const retries: number[] = [];
    const doorman = doormanClient({
      secretKey: tenant.keys.sk_test,
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      screenTimeoutMs: 1500,
      onRetry: (r) => retries.push(r.retry),
    });
    const result = await doorman.screen(aSignup() as never);
    expect(result).to.deep.include({ failedOpen: true, reason: 'network_error' });
    expect((result as FailedOpen).error.message).to.match(/ECONNREFUSED/);
    expect((result as FailedOpen).error.attempts).to.equal(3);
    expect(retries).to.deep.equal([1, 2]);
  });

  it("passes codes and fields it does not know through as strings, retries an unknown 5xx error code, honours a 503's retry-after", async () => {
    let calls = 0;
    const later = await startHttpStandIn((req) => {
      calls += 1;
      if (req.path !== '/v1/verdict') return { status: 404 };
      if (calls === 1) return { status: 503, body: { error: 'maintenance', message: 'back soon' } };
      return {
        status: 200,
        body: {
          id: 'evt_1',
          verdict: 'review',
          reasons: [{ code: 'brand_new_signal', detail: { score_band: 'high' } }],
          policy_version: '2030-01-01.1',
          recommended_action: 'step_up',
          risk_story: 'new field',
        },
      };
    });
    try {
      const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: later.url });
      const result = await doorman.screen(aSignup() as never);
      if (result.failedOpen) expect.fail(`failed open: ${result.error.message}`);
      expect(result.reasons[0]!.code).to.equal('brand_new_signal');
      expect(result.recommended_action).to.equal('step_up');
      expect((result as unknown as { risk_story: string }).risk_story).to.equal('new field');
      expect(later.requests.map((r) => r.headers['idempotency-key'])).to.have.length(2);
      expect(new Set(later.requests.map((r) => r.headers['idempotency-key'])).size).to.equal(1);

      // A warming instance's 503 asks for more time than the budget has: fail open at once.
      later.respondWith(() => ({ status: 503, headers: { 'retry-after': '10' }, body: { error: 'internal', message: 'warming up' } }));
      const started = Date.now();
      const warming = await doorman.screen(aSignup() as never);
      expect(warming).to.deep.include({ failedOpen: true, reason: 'server_error' });
      expect([(warming as FailedOpen).error.retryAfterMs, (warming as FailedOpen).error.attempts]).to.deep.equal([10_000, 1]);
      expect(Date.now() - started).to.be.below(1000);

      later.respondWith(() => ({ status: 402, body: { error: 'plan_exceeded', message: 'upgrade' } }));
      const refused = await doorman.screen(aSignup() as never).catch((err: DoormanError) => err);
      expect([(refused as DoormanError).code, (refused as DoormanError).retryable]).to.deep.equal(['plan_exceeded', false]);
    } finally {
      await later.close();
    }
  });

  it("reads degraded from the reasons that name missing sources, a later Doorman's unnamed one as unknown", async () => {
    const answer = (reasons: object[]) => ({
      status: 200,
      body: { id: 'evt_1', verdict: 'allow', reasons, policy_version: '2030-01-01.1' },
    });
    const later = await startHttpStandIn(() =>
      answer([
        { code: 'timeout_failopen', detail: { sources: 'rdap,dns' } },
        { code: 'partial_enrichment', detail: { sources: 'graph,dns' } },
        { code: 'proxy_ip' },
      ]),
    );
    try {
      const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: later.url });
      const both = await doorman.screen(aSignup() as never);
      expect(both.failedOpen ? undefined : both.degraded).to.deep.equal(['dns', 'graph', 'rdap']);
      later.respondWith(() => answer([{ code: 'partial_enrichment' }]));
      const unnamed = await doorman.screen(aSignup() as never);
      expect(unnamed.failedOpen ? undefined : unnamed.degraded).to.deep.equal(['unknown']);
    } finally {
      await later.close();
    }
  });

  it("runs the README's signup example: allow is 201, block a generic 403, and Doorman down still 201 (failed open)", async () => {
    const created: string[] = [];
    const createUser = async (userId: string) => {
      created.push(userId);
    };
    const blocked = `blocked.${Date.now()}@${DOMAINS.good}`;
    await changeList(
      testDeps().db,
      { tenantId: tenant.tenantId, mode: 'test' },
      { action: 'add', list: 'block', kind: 'email', value: blocked },
    );
    const shop = signupApp(doormanClient({ secretKey: tenant.keys.sk_test, baseUrl }), createUser);
    const before = verdictCalls().length;
    const welcome = await request(shop)
      .post('/signup')
      .set('X-Forwarded-For', IPS.clean)
      .send({ email: `ada.${Date.now()}@${DOMAINS.good}` });
    expect(welcome.status).to.equal(201);
    const refused = await request(shop).post('/signup').set('X-Forwarded-For', IPS.clean).send({ email: blocked });
    expect([refused.status, refused.body]).to.deep.equal([403, { error: 'We could not create your account.' }]);
    // The end user's address (from the trusted proxy's header), not the shop's own.
    const sent = verdictCalls()
      .slice(before)
      .map((e) => JSON.parse(e.body.toString('utf8')));
    expect(sent.map((b) => b.ip)).to.deep.equal([IPS.clean, IPS.clean]);
    const down = signupApp(doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: `http://127.0.0.1:${await freePort()}` }), createUser);
    expect(
      (
        await request(down)
          .post('/signup')
          .set('X-Forwarded-For', IPS.clean)
          .send({ email: `bo@${DOMAINS.good}` })
      ).status,
    ).to.equal(201);
    expect(created).to.have.length(2);
    expect(created[0]).to.equal(welcome.body.user_id);
  });
});
