// Shadow policies: a published version evaluated beside the live one, its decisions stored after
// the response and never changing what was answered; the shadow report compares the two like a
// backtest over live traffic.
import { expect } from 'chai';
import { pino } from 'pino';
import { createPolicyRegistry } from '../../src/policies/documents/policy-registry.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { recordShadow, setShadow, shadowReport } from '../../src/policies/shadows/shadow-policy.js';
import { findStoredDecision } from '../../src/policies/replay/stored-decisions.js';
import type { Signals } from '../../src/engine/types.js';
import { AppError } from '../../src/errors.js';
import { aTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { graph, ip } from '../engine/engine-builders.js';
import { aDocument, doormanJson } from './policy-builders.js';
import { seedDecision, seedFeedback } from './seed-decisions.js';

describe('shadow policies', function () {
  this.timeout(300_000);
  const deps = testDeps();
  const logger = pino({ level: 'silent' });

  it('stores what the shadow would have decided, after the fact, and nothing without a shadow', async () => {
    const scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'test' as const };
    const policies = createPolicyRegistry(deps.db);
    const signals: Signals = { eventType: 'signup', missing: [], lists: [], ip: ip({ proxy: true }) };
    const live = await seedDecision(deps.db, scope, { signals, createdAt: new Date() });
    await recordShadow({ db: deps.db, policies, logger }, scope, { eventId: live.id, signals, live: live.decision, createdAt: new Date() });
    expect((await deps.db.query('SELECT 1 FROM shadow_decisions WHERE tenant_id = $1', [scope.tenantId])).rowCount).to.equal(0);

    const version = await publishPolicy(deps, scope, { document: aDocument({ proxy_ip: { effects: { signup: 'block' } } }) });
    await setShadow(deps, scope, version);
    await policies.refresh(scope);
    const before = await findStoredDecision(deps.db, scope, live.id);
    await recordShadow({ db: deps.db, policies, logger }, scope, {
      eventId: live.id,
      signals,
      live: live.decision,
      createdAt: before!.createdAt,
    });
    await recordShadow({ db: deps.db, policies, logger }, scope, {
      eventId: live.id,
      signals,
      live: live.decision,
      createdAt: before!.createdAt,
    });
    const { rows } = await deps.db.query(
      'SELECT policy_version, verdict, reasons, live_verdict, engine_version FROM shadow_decisions WHERE tenant_id = $1',
      [scope.tenantId],
    );
    expect(rows).to.have.length(1);
    expect(rows[0]).to.deep.include({ policy_version: version, verdict: 'block', reasons: [{ code: 'proxy_ip' }], live_verdict: 'review' });
    expect(rows[0].engine_version).to.match(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    // The live decision, as stored and as answered, is untouched.
    expect(await findStoredDecision(deps.db, scope, live.id)).to.deep.equal(before);
    expect(live.decision.verdict).to.equal('review');
  });

  it('logs instead of throwing when the shadow decision cannot be stored', async () => {
    const scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'test' as const };
    const version = await publishPolicy(deps, scope, { document: aDocument() });
    await setShadow(deps, scope, version);
    const policies = createPolicyRegistry(deps.db);
    await policies.refresh(scope);
    const warnings: string[] = [];
    const spy = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    // No such event: the foreign key refuses the row.
    await recordShadow({ db: deps.db, policies, logger: spy }, scope, {
      eventId: 'evt_missing',
      signals: { eventType: 'login', missing: [] },
      live: { verdict: 'allow' },
      createdAt: new Date(),
    });
    expect(warnings.join('')).to.match(/shadow decision not stored/);
  });

  it('reports the shadow against live traffic like a backtest, with labels and paged flips', async () => {
    const scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'live' as const };
    const document = aDocument({ proxy_ip: { enabled: false }, identity_cluster: { min_accounts: 2 } });
    // identity_cluster by its count alone (no group_accounts): a cluster of 2 is held.
    delete document.rules.identity_cluster!.group_accounts;
    const version = await publishPolicy(deps, scope, { document });
    await setShadow(deps, scope, version);
    const policies = createPolicyRegistry(deps.db);
    await policies.refresh(scope);
    const t = (m: number) => new Date(Date.UTC(2031, 5, 1, 12, m));
    const seeds: Signals[] = [
      { eventType: 'signup', missing: [], ip: ip({ proxy: true }) },
      { eventType: 'signup', missing: [], ip: ip({ proxy: true }) },
      { eventType: 'signup', missing: [], graph: graph({ linkedAccounts: 2, clusterId: 'clu_x' }) },
      { eventType: 'login', missing: [] },
    ];
    const ids: string[] = [];
    for (const [i, signals] of seeds.entries()) {
      const live = await seedDecision(deps.db, scope, { signals, createdAt: t(i) });
      ids.push(live.id);
      await recordShadow({ db: deps.db, policies, logger }, scope, { eventId: live.id, signals, live: live.decision, createdAt: t(i) });
    }
    await seedFeedback(deps.db, scope, 'event_id', ids[0]!, 'confirmed_abuse');
    const report = await shadowReport(deps, scope, { limit: 2 });
    expect(report).to.deep.include({ shadow_version: version, events: 4 });
    expect(report.matrix).to.deep.equal({
      allow: { allow: 1, review: 1, block: 0 },
      review: { allow: 2, review: 0, block: 0 },
      block: { allow: 0, review: 0, block: 0 },
    });
    expect(report.codes).to.deep.equal({ before: { proxy_ip: 2, identity_cluster: 1 }, after: { identity_cluster: 1 } });
    expect(report.labels.abusive).to.deep.equal({ events: 1, caught_before: 1, caught_after: 0, newly_caught: 0, newly_missed: 1 });
    expect(report.flips.total).to.equal(3);
    expect(report.flips.events.map((f) => f.event_id)).to.deep.equal(ids.slice(0, 2));
    const next = await doormanJson(
      'policy',
      'shadow-report',
      '--tenant',
      scope.tenantId,
      '--mode',
      'live',
      '--limit',
      '2',
      '--cursor',
      report.flips.next_cursor!,
    );
    expect(
      next.flips.events.map((f: { event_id: string; before: string; after: string }) => [f.event_id, f.before, f.after]),
    ).to.deep.equal([[ids[2], 'allow', 'review']]);
    const ranged = await shadowReport(deps, scope, { from: t(2), to: t(3) });
    expect(ranged.events).to.equal(1);
    const none = await shadowReport(deps, { tenantId: (await aTenant(deps)).tenantId, mode: 'live' }, {}).catch((e: AppError) => e);
    expect((none as AppError).code).to.equal('not_found');
  });

  it('doorman policy shadow set and clear', async () => {
    const scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'test' as const };
    const version = await publishPolicy(deps, scope, { document: aDocument() });
    expect(await doormanJson('policy', 'shadow', 'set', version, '--tenant', scope.tenantId, '--mode', 'test')).to.deep.equal({
      ok: true,
      shadow: version,
    });
    const history = await doormanJson('policy', 'history', '--tenant', scope.tenantId, '--mode', 'test');
    expect(history.versions[0]).to.deep.include({ policy_version: version, shadow: true, in_force: true });
    expect(await doormanJson('policy', 'shadow', 'clear', '--tenant', scope.tenantId, '--mode', 'test')).to.deep.equal({
      ok: true,
      shadow: null,
    });
  });
});
