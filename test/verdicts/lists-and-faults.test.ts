// Allow/block list precedence, and the verdict's behaviour when a part of it fails (fail open).
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { changeList } from '../../src/lists/manage-lists.js';
import type { Rule } from '../../src/engine/rule.js';
import { defaultPolicy } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import { freePort, startRedis, until } from '../support/processes.js';
import { createApp } from '../../src/app.js';
import { testDeps, testEnv } from '../support/test-deps.js';
import { aCheckout, aSignup, codes, DOMAINS, IPS, verdictHarness } from '../support/verdict-harness.js';

describe('allow and block lists', () => {
  it('blocklisted beats everything, allowlisted beats every other rule', async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    await changeList(h.deps.db, scope, { action: 'add', list: 'allow', kind: 'ip', value: IPS.proxy });
    const allowed = await h.verdict(aSignup({ ip: IPS.proxy }));
    expect(allowed.body.verdict).to.equal('allow');
    expect(codes(allowed)).to.deep.equal(['allowlisted', 'proxy_ip']);

    await changeList(h.deps.db, scope, { action: 'add', list: 'block', kind: 'email', value: 'Bad.Actor+promo@GMAIL.com' });
    const blocked = await h.verdict(aSignup({ ip: IPS.proxy, email: `badactor@${DOMAINS.freemail}` }));
    expect(blocked.body.verdict).to.equal('block');
    expect(codes(blocked)).to.include.members(['blocklisted', 'allowlisted']);

    // Lists belong to one mode: the live key sees none of the test entries.
    const live = await (await import('supertest'))
      .default(h.app)
      .post('/v1/verdict')
      .set('Authorization', `Bearer ${h.tenant.keys.sk_live}`)
      .send(aSignup({ ip: IPS.proxy }));
    expect(live.body.verdict).to.equal('review');
  });

  it('matches email domains, including a parent domain, and card fingerprints', async () => {
    const h = await verdictHarness();
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    await changeList(h.deps.db, scope, { action: 'add', list: 'block', kind: 'email_domain', value: DOMAINS.corp });
    await changeList(h.deps.db, scope, { action: 'add', list: 'block', kind: 'card_fingerprint', value: 'card_stolen' });
    expect((await h.verdict(aSignup({ email: `x@eu.${DOMAINS.corp}` }))).body.verdict).to.equal('block');
    expect((await h.verdict(aCheckout({}, { card_fingerprint: 'card_stolen' }))).body.verdict).to.equal('block');
    expect((await h.verdict(aCheckout({}, { card_fingerprint: 'card_fine' }))).body.verdict).to.equal('allow');
  });

  it('is managed with `doorman list add|remove --json`', async () => {
    const h = await verdictHarness();
    const run = (...args: string[]) =>
      promisify(execFile)('node', ['bin/doorman.js', '--json', 'list', ...args], { env: { ...testEnv, DOORMAN_FROM_SOURCE: '1' } });
    const common = ['--tenant', h.tenant.tenantId, '--mode', 'test', '--list', 'block', '--kind', 'ip', '--value', '100.64.99.9'];
    expect(JSON.parse((await run('add', ...common)).stdout)).to.deep.equal({ ok: true });
    expect((await h.verdict(aSignup({ ip: '100.64.99.9' }))).body.verdict).to.equal('block');
    expect(JSON.parse((await run('remove', ...common)).stdout)).to.deep.equal({ ok: true });
    expect((await h.verdict(aSignup({ ip: '100.64.99.9' }))).body.verdict).to.equal('allow');
    const bad = await run('add', ...common.slice(0, -1), 'not-an-ip').catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).to.not.equal(0);
    expect((bad as { stderr: string }).stderr).to.match(/not a valid ip/);
  });
});

describe('POST /v1/verdict when something fails', function () {
  this.timeout(30_000);

  it('fails open when a rule throws: allow, no reasons, counted', async () => {
    const exploding: Rule = {
      code: 'explodes',
      evaluate: () => {
        throw new Error('rule bug');
      },
    };
    const policy = { ...defaultPolicy, rules: { ...defaultPolicy.rules, explodes: { effects: { signup: 'block' as const } } } };
    const h = await verdictHarness({}, { engine: { rules: [...defaultRules, exploding], policy } });
    const res = await h.verdict(aSignup({ ip: IPS.tor }));
    expect(res.status).to.equal(200);
    expect(res.body.verdict).to.equal('allow');
    expect(res.body.reasons).to.deep.equal([]);
    const failOpens = await h.deps.metrics.registry.getSingleMetric('doorman_fail_open_total')!.get();
    expect(failOpens.values[0]?.value).to.equal(1);
    const { rows } = await h.deps.db.query('SELECT verdict FROM events WHERE id = $1', [res.body.id]);
    expect(rows).to.deep.equal([{ verdict: 'allow' }]);
  });

  it('answers 200 with partial_enrichment when Redis is down, and counts nothing', async () => {
    const redis = await startRedis();
    const h = await verdictHarness({ REDIS_URL: `redis://127.0.0.1:${redis.port}` });
    await until('redis ready', async () => (h.deps.redis.status === 'ready' ? true : undefined));
    expect((await h.verdict(aSignup({ ip: '100.64.80.1' }))).body.reasons).to.deep.equal([]);
    await redis.stop();
    await until('client to notice', async () => (h.deps.redis.status !== 'ready' ? true : undefined));
    const res = await h.verdict(aSignup({ ip: '100.64.80.1' }));
    expect(res.status).to.equal(200);
    expect(res.body.verdict).to.equal('allow');
    expect(res.body.reasons).to.deep.equal([{ code: 'partial_enrichment', detail: { sources: 'velocity' } }]);
  });

  it('answers within the deadline with timeout_failopen when DNS is slow, keeping the other email facts', async () => {
    const h = await verdictHarness({ SIGNAL_DEADLINE_MS: '300', DNS_TIMEOUT_MS: '150' });
    const started = Date.now();
    const res = await h.verdict(aSignup({ email: `a@${DOMAINS.slowDns}` }));
    const elapsed = Date.now() - started;
    expect(res.status).to.equal(200);
    expect(res.body.reasons).to.deep.equal([{ code: 'timeout_failopen', detail: { sources: 'dns' } }]);
    // The DNS stand-in holds its answer 2 s; the verdict did not wait for it.
    expect(elapsed).to.be.below(1500);
  });

  it('answers a 500 internal, retryable, when Postgres is down, and leaves no event', async () => {
    const h = await verdictHarness();
    const port = await freePort();
    const broken = createApp(testDeps({ DATABASE_URL: `postgres://localhost:${port}/doorman_test` }));
    const res = await (await import('supertest'))
      .default(broken)
      .post('/v1/verdict')
      .set('Authorization', `Bearer ${h.tenant.keys.sk_test}`)
      .send(aSignup());
    expect(res.status).to.equal(500);
    expect(res.body.error).to.equal('internal');
    expect(res.body.message).to.match(/Retry/);
    const { rows } = await h.deps.db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [h.tenant.tenantId]);
    expect(rows[0].n).to.equal(0);
  });
});
