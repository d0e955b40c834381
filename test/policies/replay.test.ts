// Replay: every decision the verdict path makes can be re-evaluated from its stored signals and
// comes out the same under its own policy; under another version the difference is shown; the
// explanation gives the counterfactual from the policy's thresholds.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { replayAll } from '../../src/policies/replay/replay-all.js';
import { replayEvent } from '../../src/policies/replay/replay-event.js';
import { explainEvent, explanationText } from '../../src/policies/replay/explain-event.js';
import { AppError } from '../../src/errors.js';
import { aTenant, bearer } from '../support/fixtures.js';
import { aCheckout, aSignup, DOMAINS, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { aDocument, doorman, doormanJson } from './policy-builders.js';
import { noteGraphScope } from '../support/graph-scopes.js';

describe('replaying stored decisions', function () {
  this.timeout(300_000);
  let h: Harness;
  const ids: Record<string, string> = {};
  const scope = () => ({ tenantId: h.tenant.tenantId, mode: 'test' as const });

  before(async () => {
    h = await verdictHarness();
    const token = async (canvas: string) =>
      (await request(h.app).post('/v1/device').set(bearer(h.tenant.keys.pk_test)).send({ components: { canvas } })).body
        .device_token as string;
    const judge = async (name: string, body: object) => {
      const res = await h.verdict(body);
      expect(res.status, name).to.equal(200);
      ids[name] = res.body.id;
      return res.body;
    };
    await judge('clean', aSignup());
    await judge('disposable', aSignup({ email: `x@${DOMAINS.disposable}` }));
    await judge('malformed', aSignup({ email: 'john..doe@shop-mail.com' }));
    await judge('young', aSignup({ email: `a@${DOMAINS.young}` }));
    await judge('noMx', aSignup({ email: `a@${DOMAINS.noMx}` }));
    await judge('tor', aSignup({ ip: IPS.tor }));
    await judge('proxy', aSignup({ ip: IPS.proxy }));
    await judge('datacenter', { event_type: 'trial_start', email: `t@${DOMAINS.good}`, ip: IPS.datacenter });
    // Freemail addresses, so only the ip count grows (freemail domains are not counted).
    for (let i = 0; i < 22; i++)
      await judge(`burst${i}`, aSignup({ ip: '100.64.77.1', email: `burst${i}.${Date.now()}@${DOMAINS.freemail}` }));
    await judge('prepaid', aCheckout({}, { card_funding: 'prepaid', card_fingerprint: 'card_prepaid' }));
    // One card, five addresses: the card's count fires, the ips' do not.
    for (let i = 0; i < 5; i++)
      await judge(`probe${i}`, aCheckout({ ip: `100.64.78.${i + 1}` }, { amount: 50, card_fingerprint: 'card_probe' }));
    const laptop = await token('laptop');
    await judge('history', aSignup({ external_user_id: 'acct_1', device_token: laptop }));
    await judge('newDevice', { event_type: 'login', external_user_id: 'acct_1', device_token: await token('phone') });
    await judge('listed', aSignup({ email: `boss@${DOMAINS.corp}` }));
  });

  it('reproduces every decision exactly under its own policy', async () => {
    const verdicts = new Set<string>();
    for (const [name, id] of Object.entries(ids)) {
      const r = await replayEvent(h.deps, scope(), id);
      expect(r.same, `${name}: ${JSON.stringify(r.differences)}`).to.equal(true);
      expect(r.replayed).to.deep.equal(r.stored);
      verdicts.add(r.stored.verdict);
    }
    expect([...verdicts].sort()).to.deep.equal(['allow', 'block', 'review']);
  });

  it('replays the whole scope with zero differences (the pre-deploy check)', async () => {
    const check = await replayAll(h.deps, { scope: scope() });
    expect(check).to.deep.include({
      events: Object.keys(ids).length,
      same: Object.keys(ids).length,
      different: 0,
      unknown_policy: 0,
      differences: [],
    });
  });

  it('lists a decision that no longer comes out the same, and counts it against its engine', async () => {
    const { tenantId } = await aTenant(h.deps);
    await noteGraphScope(h.deps.db, tenantId, { drift: 'a decision of an older engine written straight into Postgres' });
    // A decision an older engine made: stored block, while these signals now give allow.
    await h.deps.db.query(
      `INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version, engine_version, created_at, request, signals)
       VALUES ($1, 'live', 'evt_older', 'signup', 'block', '[{"code":"made_up"}]', '2026-11-22.1', '2020-01-01.1', now(), '{}', '{"eventType":"signup","missing":[]}')`,
      [tenantId],
    );
    const check = await replayAll(h.deps, { tenantIds: [tenantId] });
    expect(check).to.deep.include({ events: 1, same: 0, different: 1, different_other_engine: 1 });
    expect(check.differences).to.deep.equal([
      {
        event_id: 'evt_older',
        tenant_id: tenantId,
        mode: 'live',
        policy_version: '2026-11-22.1',
        engine_version: '2020-01-01.1',
        differences: [
          { field: 'verdict', stored: 'block', replayed: 'allow' },
          { field: 'reason', code: 'made_up', change: 'removed', stored: undefined },
        ],
      },
    ]);
    expect((await replayAll(h.deps, { tenantIds: [tenantId], engineVersion: '2026-11-23.1' })).events).to.equal(0);
    const cli = await doorman('--json', 'policy', 'replay', '--all', '--tenant', tenantId, '--mode', 'live');
    expect(cli.code).to.equal(0);
    expect(JSON.parse(cli.stdout)).to.deep.include({ different: 1, different_other_engine: 1 });
  });

  it('shows the difference under another version', async () => {
    const version = await publishPolicy(h.deps, scope(), {
      document: aDocument({ proxy_ip: { enabled: false }, velocity_ip_signups: { over: 25, block_over: 40 } }),
    });
    const proxy = await replayEvent(h.deps, scope(), ids.proxy!, version);
    expect(proxy).to.deep.include({ policy_version: version, stored_policy_version: '2026-11-26.1', same: false });
    expect(proxy.stored).to.deep.equal({ verdict: 'review', reasons: [{ code: 'proxy_ip' }] });
    expect(proxy.replayed).to.deep.equal({ verdict: 'allow', reasons: [] });
    expect(proxy.differences).to.deep.equal([
      { field: 'verdict', stored: 'review', replayed: 'allow' },
      { field: 'reason', code: 'proxy_ip', change: 'removed', stored: undefined },
    ]);
    const burst = await replayEvent(h.deps, scope(), ids.burst21!, version);
    expect(burst.stored.verdict).to.equal('block');
    expect(burst.replayed).to.deep.equal({ verdict: 'allow', reasons: [] });
    const other = await replayAll(h.deps, { scope: scope() });
    expect(other.different).to.equal(0);
  });

  it('explains a block with the single change that would have made it a review', async () => {
    const e = await explainEvent(h.deps, scope(), ids.burst21!);
    expect(e).to.deep.include({ verdict: 'block', same_as_stored: true, policy_version: '2026-11-26.1' });
    expect(e.reasons).to.deep.equal([
      { code: 'velocity_ip_signups', detail: { count: 22, threshold: 20, window_seconds: 3600, rule: 'velocity_ip_signups.block_over' } },
    ]);
    expect(e.counterfactual).to.deep.equal({
      from: 'block',
      to: 'review',
      changes: [
        { input: 'velocity.ipSignups', from: 22, to: 20, rule: 'velocity_ip_signups.block_over', verdict: 'review' },
        { input: 'velocity.ipSignups', from: 22, to: 5, rule: 'velocity_ip_signups.over', verdict: 'allow' },
      ],
    });
    expect(explanationText(e)).to.match(
      /Would have been review had velocity.ipSignups been 20 instead of 22 \(velocity_ip_signups.block_over\)/,
    );
    const newDevice = await explainEvent(h.deps, scope(), ids.newDevice!);
    expect(newDevice).to.deep.include({ verdict: 'review', recommended_action: 'challenge' });
    expect(newDevice.counterfactual?.changes).to.deep.equal([
      { input: 'graph.deviceSeenForAccount', from: false, to: true, rule: 'ato_new_device', verdict: 'allow' },
    ]);
    expect((await explainEvent(h.deps, scope(), ids.clean!)).counterfactual).to.equal(null);
  });

  it('answers not_found for an event of another scope and an unknown version', async () => {
    expect(((await replayEvent(h.deps, { ...scope(), mode: 'live' }, ids.clean!).catch((e: AppError) => e)) as AppError).code).to.equal(
      'not_found',
    );
    expect(((await replayEvent(h.deps, scope(), ids.clean!, '2001-01-01.1').catch((e: AppError) => e)) as AppError).code).to.equal(
      'not_found',
    );
  });

  it('fails, rather than counting unknown policies, when the policies cannot be read', async () => {
    // A real refusal from Postgres: a role that may read events but not policy_versions.
    const role = `replay_reader_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    await h.deps.db.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await h.deps.db.query(`GRANT SELECT ON events TO ${role}`);
    const url = new URL(h.deps.config.databaseUrl);
    url.username = role;
    url.password = password;
    const reader = new pg.Pool({ connectionString: url.href, max: 2 });
    try {
      const failed = await replayAll({ db: reader }, { tenantIds: [h.tenant.tenantId] }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect((failed as { code?: string } | undefined)?.code, 'permission denied for table policy_versions').to.equal('42501');
      // With the policies readable, the same range has none unknown.
      expect(await replayAll(h.deps, { tenantIds: [h.tenant.tenantId] })).to.deep.include({ unknown_policy: 0, different: 0 });
    } finally {
      await reader.end();
      await h.deps.db.query(`REVOKE ALL ON events FROM ${role}`);
      await h.deps.db.query(`DROP ROLE ${role}`);
    }
  });

  it('doorman policy replay, replay --all and explain: the JSON shapes', async () => {
    const args = ['--tenant', h.tenant.tenantId, '--mode', 'test'];
    const r = await doormanJson('policy', 'replay', ids.tor!, ...args);
    expect(r).to.deep.include({ event_id: ids.tor, policy_version: '2026-11-26.1', same: true });
    expect(r.stored).to.deep.equal({ verdict: 'review', reasons: [{ code: 'tor_exit' }] });
    expect(r.replayed).to.deep.equal(r.stored);
    expect(r.engine_version.current).to.match(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    const all = await doormanJson('policy', 'replay', '--all', ...args);
    expect(all).to.deep.include({ events: Object.keys(ids).length, different: 0 });
    const e = await doormanJson('policy', 'explain', ids.probe4!, ...args);
    expect(e.verdict).to.equal('block');
    expect(e.reasons[0].detail).to.deep.include({ attempts_10m: 5, count: 5, threshold: 5, rule: 'card_probe_pattern.at_least' });
    expect(e.counterfactual.changes.map((c: { input: string; to: number }) => [c.input, c.to])).to.deep.equal([
      ['velocity.cardSmallAttempts', 4],
    ]);
    const human = await doorman('policy', 'explain', ids.probe4!, ...args);
    expect(human.stdout).to.match(/card_probe_pattern: 5 against 5 in 600 s/);
  });
});
