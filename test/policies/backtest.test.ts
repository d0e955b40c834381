// Backtests on a seeded tenant with known labels: the transition matrix, the codes before and
// after, the label-weighted results, the flips (paged), a published version as candidate, and a
// long run as a pg-boss job on a real worker with progress on stderr.
import { expect } from 'chai';
import { QUEUES } from '../../src/jobs/job-queue.js';
import { runBacktestJobs, type BacktestJob } from '../../src/policies/backtests/backtest-job.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { backtestReport, startBacktest } from '../../src/policies/backtests/start-backtest.js';
import { AppError } from '../../src/errors.js';
import { aTenant } from '../support/fixtures.js';
import { ownTestDeps, testDeps } from '../support/test-deps.js';
import { graph, ip, email } from '../engine/engine-builders.js';
import { aDocument, doorman, writeDocument } from './policy-builders.js';
import { resolveSeededReview, seedDecision, seedFeedback } from './seed-decisions.js';

const T0 = new Date('2031-03-01T00:00:00Z');
const T1 = new Date('2031-03-02T00:00:00Z');
const minute = (n: number) => new Date(T0.getTime() + n * 60_000);
// The candidate: proxies no longer reviewed, and more than 3 signups from an ip reviewed.
const candidate = () => aDocument({ proxy_ip: { enabled: false }, velocity_ip_signups: { over: 3, block_over: 20 } });

describe('policy backtest', function () {
  this.timeout(300_000);
  const deps = testDeps();
  let scope: { tenantId: string; mode: 'live' };
  const e: Record<string, string> = {};

  before(async () => {
    scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'live' };
    const seed = async (
      name: string,
      n: number,
      s: Parameters<typeof seedDecision>[2]['signals'],
      extra: { externalUserId?: string; email?: string } = {},
    ) => {
      e[name] = (await seedDecision(deps.db, scope, { signals: s, createdAt: minute(n), ...extra })).id;
    };
    await seed('proxyGood', 1, { eventType: 'signup', ip: ip({ proxy: true }) });
    await seed('proxyBad', 2, { eventType: 'signup', ip: ip({ proxy: true }) }, { externalUserId: 'acct_bad' });
    await seed('ip4Bad', 3, { eventType: 'signup', velocity: { ipSignups: 4 } }, { email: 'Victim@Example.com' });
    await seed('ip5Good', 4, { eventType: 'signup', velocity: { ipSignups: 5 }, graph: graph({ clusterId: 'clu_good' }) });
    await seed('cleanGood', 5, { eventType: 'signup', graph: graph({ clusterId: 'clu_good' }) });
    await seed('disposableDenied', 6, { eventType: 'signup', email: email({ disposable: true }) });
    await seed('disposableApproved', 7, { eventType: 'signup', email: email({ disposable: true }) });
    await seed('torCheckout', 8, { eventType: 'checkout_attempt', ip: ip({ torExit: true }) });
    await seed('before', -5, { eventType: 'signup', ip: ip({ proxy: true }) });
    await seed('login', 9, { eventType: 'login' });
    await seed('ownGoodInBadCluster', 10, { eventType: 'signup', graph: graph({ clusterId: 'clu_bad' }) });
    await seed('abuser', 11, { eventType: 'signup', graph: graph({ clusterId: 'clu_bad' }) });
    await seedFeedback(deps.db, scope, 'event_id', e.proxyGood!, 'false_positive');
    await seedFeedback(deps.db, scope, 'external_user_id', 'acct_bad', 'confirmed_abuse');
    await seedFeedback(deps.db, scope, 'email', 'victim@example.com', 'chargeback');
    await seedFeedback(deps.db, scope, 'event_id', e.cleanGood!, 'false_positive');
    await seedFeedback(deps.db, scope, 'event_id', e.ownGoodInBadCluster!, 'false_positive');
    await seedFeedback(deps.db, scope, 'event_id', e.abuser!, 'confirmed_abuse');
    await resolveSeededReview(deps.db, scope, e.disposableDenied!, 'denied');
    await resolveSeededReview(deps.db, scope, e.disposableApproved!, 'approved');
  });

  it('gives the transition matrix, the codes before and after, and the label-weighted results', async () => {
    const { backtestId, queued, eventsTotal } = await startBacktest(deps, scope, {
      candidate: { document: candidate() },
      from: T0,
      to: T1,
    });
    expect({ queued, eventsTotal }).to.deep.equal({ queued: false, eventsTotal: 11 });
    const r = (await backtestReport(deps.db, scope, backtestId)) as Record<string, any>;
    expect(r).to.deep.include({ backtest_id: backtestId, status: 'done', events: 11, events_total: 11, events_done: 11 });
    expect(r.matrix).to.deep.equal({
      allow: { allow: 4, review: 2, block: 0 },
      review: { allow: 2, review: 2, block: 0 },
      block: { allow: 0, review: 0, block: 1 },
    });
    expect(r.codes).to.deep.equal({
      before: { proxy_ip: 2, disposable_email: 2, tor_exit: 1 },
      after: { velocity_ip_signups: 2, disposable_email: 2, tor_exit: 1 },
    });
    expect(r.labels).to.deep.equal({
      abusive: { events: 4, caught_before: 2, caught_after: 2, newly_caught: 1, newly_missed: 1 },
      good: { events: 5, flagged_before: 2, flagged_after: 2, newly_reviewed: 1, newly_blocked: 0, newly_allowed: 1 },
      unlabeled: 2,
    });
    expect(r.flips.total).to.equal(4);
    expect(
      r.flips.events.map((f: { event_id: string; before: string; after: string; added: string[]; removed: string[]; label: string }) => [
        f.event_id,
        f.before,
        f.after,
        f.added,
        f.removed,
        f.label,
      ]),
    ).to.deep.equal([
      [e.proxyGood, 'review', 'allow', [], ['proxy_ip'], 'good'],
      [e.proxyBad, 'review', 'allow', [], ['proxy_ip'], 'abusive'],
      [e.ip4Bad, 'allow', 'review', ['velocity_ip_signups'], [], 'abusive'],
      [e.ip5Good, 'allow', 'review', ['velocity_ip_signups'], [], 'good'],
    ]);
    expect(r.warnings).to.deep.equal([]);
    expect(r.events_per_second).to.be.a('number');
  });

  it('pages the flips, filters by event type, and takes a published version as the candidate', async () => {
    const version = await publishPolicy(deps, scope, { document: candidate() });
    const { backtestId } = await startBacktest(deps, scope, { candidate: { version }, from: T0, to: T1, eventType: 'signup' });
    const first = (await backtestReport(deps.db, scope, backtestId, { limit: 3 })) as Record<string, any>;
    expect(first).to.deep.include({ events: 9, candidate_version: version, event_type: 'signup' });
    expect(first.flips.events).to.have.length(3);
    const second = (await backtestReport(deps.db, scope, backtestId, { limit: 3, cursor: first.flips.next_cursor })) as Record<string, any>;
    expect(second.flips.events.map((f: { event_id: string }) => f.event_id)).to.deep.equal([e.ip5Good]);
    expect(second.flips).to.not.have.property('next_cursor');
    const elsewhere = await backtestReport(deps.db, { ...scope, mode: 'test' }, backtestId).catch((err: AppError) => err);
    expect((elsewhere as AppError).code).to.equal('not_found');
  });

  it('warns when the candidate changes how velocity is counted', async () => {
    const { backtestId } = await startBacktest(deps, scope, {
      candidate: { document: aDocument({ velocity_ip_signups: { window_seconds: 7200 } }) },
      from: T0,
      to: T1,
    });
    const r = (await backtestReport(deps.db, scope, backtestId)) as Record<string, any>;
    expect(r.warnings).to.have.length(1);
    expect(r.warnings[0]).to.match(/^velocity_ip_signups.window_seconds is 7200 here but 3600 in force/);
  });

  it('refuses a bad range, an unknown event type, an invalid candidate and an unknown version', async () => {
    const fail = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (err: AppError) => err,
      );
    const backwards = await fail(startBacktest(deps, scope, { candidate: { document: candidate() }, from: T1, to: T0 }));
    expect((backwards as AppError).details?.issues).to.deep.equal([{ path: 'to', message: 'must be after from' }]);
    const badType = await fail(startBacktest(deps, scope, { candidate: { document: candidate() }, from: T0, to: T1, eventType: 'refund' }));
    expect((badType as AppError).code).to.equal('invalid_request');
    const invalid = await fail(startBacktest(deps, scope, { candidate: { document: { format: 1 } }, from: T0, to: T1 }));
    expect((invalid as AppError).code).to.equal('invalid_request');
    const unknown = await fail(startBacktest(deps, scope, { candidate: { version: '2001-01-01.1' }, from: T0, to: T1 }));
    expect((unknown as AppError).code).to.equal('not_found');
  });

  it('runs a long range as a job on a worker; the CLI shows progress on stderr and prints one document', async () => {
    const worker = ownTestDeps();
    await worker.boss.start();
    await worker.boss.work<BacktestJob>(QUEUES.policyBacktest.name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, (jobs) =>
      runBacktestJobs(worker, jobs),
    );
    try {
      const file = writeDocument(candidate());
      const r = await doorman(
        '--json',
        'policy',
        'backtest',
        file,
        '--tenant',
        scope.tenantId,
        '--mode',
        'live',
        '--from',
        T0.toISOString(),
        '--to',
        T1.toISOString(),
        '--inline-max',
        '5',
        '--progress',
      );
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout.trim().split('\n')).to.have.length(1);
      const report = JSON.parse(r.stdout);
      expect(report).to.deep.include({ status: 'done', events: 11 });
      expect(report.matrix.allow.review).to.equal(2);
      expect(r.stderr).to.match(/running as job bt_/);
      expect(r.stderr).to.match(/backtest \|.*\| 11\/11 events \| \d+ events\/s \| ETA/);
      const again = await doorman('--json', 'policy', 'backtest-result', report.backtest_id, '--tenant', scope.tenantId, '--mode', 'live');
      expect(JSON.parse(again.stdout)).to.deep.equal(report);
      const detached = await doorman(
        '--json',
        'policy',
        'backtest',
        file,
        '--tenant',
        scope.tenantId,
        '--mode',
        'live',
        '--from',
        T0.toISOString(),
        '--to',
        T1.toISOString(),
        '--job',
        '--detach',
      );
      const queued = JSON.parse(detached.stdout);
      expect(queued).to.deep.include({ status: 'queued', events_total: 11 });
    } finally {
      await worker.boss.stop({ graceful: true, wait: true });
    }
  });
});
