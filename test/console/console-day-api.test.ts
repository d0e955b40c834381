// The console API the analyst's working day adds, against the real stores: who may
// undo a resolution's marks and what it changes, the bulk resolution's per-review answers, the
// queue's filters and their bounds, the events search's filters in the contract's error shape,
// the account page, the marks' reporters and notes, the other mode's hint, the overview's
// comparison, and a saved query's email looked up as the graph keeps it.
import { expect } from 'chai';
import request from 'supertest';
import type { Deps } from '../../src/deps.js';
import { startWorkers } from '../../src/start-workers.js';
import { anAnalyst as signedIn, type ConsoleClient } from '../support/console-session.js';
import { bearer } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { aCheckout, aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { wireChecked } from './wire-conformance.js';

// Every analyst's answers are checked against the console wire's schema (wire-conformance.ts).
const anAnalyst = async (...args: Parameters<typeof signedIn>) => wireChecked(await signedIn(...args));

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_UNIT_MS: '10' };

describe("console API: the analyst's working day", function () {
  this.timeout(60_000);
  let h: Harness;
  let a: ConsoleClient;
  let b: ConsoleClient;
  let admin: ConsoleClient;
  let worker: { close(): Promise<void> };
  let workerDeps: Deps;
  const ring: string[] = [];

  before(async () => {
    workerDeps = testDeps(ENV);
    worker = await startWorkers(workerDeps);
    h = await verdictHarness(ENV);
    for (let i = 0; i < 4; i++) {
      ring.push(
        (
          await h.verdict(
            aSignup({ ip: IPS.proxy, external_user_id: `ring_${i}`, email: `Ring.${i}+x@Gmail.com`, identity: { phone: '+1555000999' } }),
          )
        ).body.id,
      );
    }
    await h.verdict(aCheckout({ external_user_id: 'ring_0' }, { card_fingerprint: 'card_day' }));
    await h.graphSettled();
    a = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'analyst');
    b = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'analyst');
    admin = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'admin');
  });

  after(async () => {
    await worker.close();
    await workerDeps.boss.stop({ graceful: false, wait: true });
  });

  it("lists the queue with each review's cluster, and filters it by type, reason, age, text and cluster size", async () => {
    const all = (await a.get('/reviews').expect(200)).body;
    expect(all.graph).to.equal('ok');
    expect(all.reviews.map((r: { event_id: string }) => r.event_id)).to.deep.equal(ring);
    expect(all.reviews[3].cluster).to.include({ accounts: 4, confirmed_abuse: false, confirmed_since_queued_at: null });
    const ids = async (q: string) =>
      (await a.get(`/reviews?${q}`).expect(200)).body.reviews.map((r: { external_user_id: string }) => r.external_user_id);
    expect(await ids('text=ring_2')).to.deep.equal(['ring_2']);
    expect(await ids('text=gmail.com')).to.deep.equal(['ring_0', 'ring_1', 'ring_2', 'ring_3']);
    expect(await ids('reason=identity_cluster')).to.deep.equal(['ring_1', 'ring_2', 'ring_3']);
    expect(await ids('event_type=login')).to.deep.equal([]);
    expect(await ids('older_than_minutes=60')).to.deep.equal([]);
    expect(await ids('newer_than_minutes=60')).to.have.length(4);
    expect(await ids('min_accounts=4')).to.have.length(4);
    expect(await ids('min_accounts=5')).to.deep.equal([]);
    expect(await ids('confirmed=1')).to.deep.equal([]);
    const bad = await a.get('/reviews?min_accounts=1&limit=500&confirmed=yes&colour=red').expect(400);
    expect(bad.body.error).to.equal('invalid_request');
    expect(bad.body.details.issues.map((i: { path: string }) => i.path).sort()).to.deep.equal([
      '/colour',
      '/confirmed',
      '/limit',
      '/min_accounts',
    ]);
  });

  it("undoes a resolution's marks: only the resolver or an admin, once, audited; the resolution stands", async () => {
    await a.post(`/reviews/${ring[0]}/resolve`, { resolution: 'denied', note: 'ring' }).expect(200);
    await h.graphSettled();
    expect((await a.get(`/events/${ring[1]}`).expect(200)).body.cluster).to.include({ confirmedAbuse: true });
    // The mark is newer than the other reviews: the queue says so.
    const marked = (await a.get('/reviews?confirmed=1').expect(200)).body.reviews;
    expect(marked.map((r: { event_id: string }) => r.event_id)).to.deep.equal(ring.slice(1));
    expect((await b.post(`/reviews/${ring[0]}/undo-marks`, { note: 'not mine' }).expect(403)).body.error).to.equal('forbidden');
    expect((await a.post(`/reviews/${ring[0]}/undo-marks`, {}).expect(400)).body.error).to.equal('invalid_request');
    expect((await a.post(`/reviews/${ring[1]}/undo-marks`, { note: 'pending' }).expect(409)).body.error).to.equal('conflict');
    expect((await a.post('/reviews/evt_nope/undo-marks', { note: 'x' }).expect(404)).body.error).to.equal('not_found');
    await a.post(`/reviews/${ring[0]}/undo-marks`, { note: 'wrong key' }).expect(200);
    expect((await admin.post(`/reviews/${ring[0]}/undo-marks`, { note: 'again' }).expect(409)).body.message).to.contain('already undone');
    await h.graphSettled();
    const after = (await a.get(`/events/${ring[0]}`).expect(200)).body;
    expect(after.review).to.include({ status: 'denied', note: 'ring' });
    expect(after.review.marks_retracted).to.include({ by: a.email, note: 'wrong key' });
    expect((await a.get(`/events/${ring[1]}`).expect(200)).body.cluster).to.include({ confirmedAbuse: false });
    expect((await a.get('/reviews?confirmed=1').expect(200)).body.reviews).to.deep.equal([]);
    const { rows } = await h.deps.db.query(
      "SELECT analyst_email, detail FROM console_audit WHERE tenant_id = $1 AND action = 'review.undo_marks'",
      [h.tenant.tenantId],
    );
    expect(rows).to.deep.equal([{ analyst_email: a.email, detail: { resolution: 'denied', note: 'wrong key' } }]);
  });

  it('resolves several reviews, answering for each: one resolved meanwhile is reported, not an error for the rest', async () => {
    await b.post(`/reviews/${ring[1]}/resolve`, { resolution: 'approved' }).expect(200);
    const res = await b
      .post('/reviews/resolve-many', { event_ids: [ring[1], ring[2], 'evt_nope'], resolution: 'denied', note: 'bulk' })
      .expect(200);
    expect(res.body.resolved).to.equal(1);
    expect(
      res.body.results.map((r: { event_id: string; ok: boolean; error?: string }) => [r.event_id, r.ok, r.error ?? null]),
    ).to.deep.equal([
      [ring[1], false, 'conflict'],
      [ring[2], true, null],
      ['evt_nope', false, 'not_found'],
    ]);
    expect((await b.post('/reviews/resolve-many', { event_ids: [], resolution: 'denied' }).expect(400)).body.error).to.equal(
      'invalid_request',
    );
    expect(
      (
        await b
          .post('/reviews/resolve-many', { event_ids: Array.from({ length: 101 }, (_, i) => `evt_${i}`), resolution: 'denied' })
          .expect(400)
      ).body.error,
    ).to.equal('invalid_request');
  });

  it('searches events by email start and domain, ip, card, identity, reason and review state; bad filters are a 400', async () => {
    const users = async (q: string) =>
      (await a.get(`/events?${q}`).expect(200)).body.events.map((e: { external_user_id: string }) => e.external_user_id);
    expect(await users('email=ring.2*')).to.deep.equal(['ring_2']);
    expect(await users('email=ring_*')).to.deep.equal([]);
    expect(await users('email=%40gmail.com')).to.have.length(4);
    expect(await users('email=GMAIL.COM')).to.have.length(4);
    expect(await users('email=ring.3%2Bx%40gmail.com')).to.deep.equal(['ring_3']);
    expect(await users(`ip=${IPS.proxy}`)).to.have.length(4);
    expect(await users('card=card_day')).to.deep.equal(['ring_0']);
    expect(await users('identity=phone%3D%2B1555000999')).to.have.length(4);
    expect(await users('reason=velocity_ip_signups&verdict=review')).to.deep.equal([]);
    expect(await users('reason=identity_cluster&event_type=signup')).to.deep.equal(['ring_3', 'ring_2', 'ring_1']);
    expect(await users('review=approved')).to.deep.equal(['ring_1']);
    expect(await users('review=none')).to.deep.equal(['ring_0']);
    const bad = await a.get('/events?identity=phone&review=maybe&from=2026-11-24T10:00').expect(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path).sort()).to.deep.equal(['/from', '/identity', '/review']);
  });

  it('shows an account: events, counts, identifiers, cluster and feedback; an unknown account is a 404', async () => {
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'external_user_id', value: 'ring_3' }, outcome: 'chargeback', note: 'bank reversal' })
      .expect(200);
    const acc = (await a.get('/accounts/ring_0').expect(200)).body;
    expect(acc).to.include({ external_user_id: 'ring_0', events_total: 2 });
    expect(acc.verdicts).to.deep.equal({ allow: 1, review: 1, block: 0 });
    expect(acc.emails).to.deep.equal(['Ring.0+x@Gmail.com']);
    expect(acc.identifiers.map((i: { kind: string; value: string }) => `${i.kind}:${i.value}`)).to.include.members([
      'phone:+1555000999',
      'card:card_day',
      'email:ring0@gmail.com',
    ]);
    expect(acc.cluster).to.include({ accounts: 4 });
    // The overview's feedback counts link to the events the feedback was about.
    const day = `feedback_from=${new Date(Date.now() - 86_400_000).toISOString()}&feedback_to=${new Date(Date.now() + 60_000).toISOString()}`;
    expect((await a.get(`/events?feedback=chargeback&${day}`).expect(200)).body.events.map((e: { id: string }) => e.id)).to.deep.equal([
      ring[3],
    ]);
    expect((await a.get(`/events?feedback=false_positive&${day}`).expect(200)).body.events).to.deep.equal([]);
    expect((await a.get('/events?feedback=chargeback').expect(400)).body.details.issues.map((i: { path: string }) => i.path)).to.deep.equal(
      ['/feedback_from', '/feedback_to'],
    );
    const three = (await a.get('/accounts/ring_3').expect(200)).body;
    expect(three.feedback.map((f: { outcome: string; note: string }) => [f.outcome, f.note])).to.deep.equal([
      ['chargeback', 'bank reversal'],
    ]);
    expect((await a.get('/accounts/nobody').expect(404)).body.error).to.equal('not_found');
  });

  it('names who reported each mark on a cluster and their note', async () => {
    await h.graphSettled();
    await a
      .post('/feedback', { subject: { kind: 'email', value: 'Ring.1+x@Gmail.com' }, outcome: 'confirmed_abuse', note: 'same person' })
      .expect(200);
    await h.graphSettled();
    const evidence = (await a.get(`/events/${ring[3]}/evidence`).expect(200)).body;
    // Standing: the API's chargeback, the console's email report, the approval of ring_1 (a false
    // positive) and the bulk denial of ring_2 (ring_0's denial was taken back).
    type Mark = { outcome: string; reported_by: string; note: string; subject_value: string; retracted?: Record<string, unknown> };
    const marks = (evidence.marks as Mark[]).filter((m) => !m.retracted).map((m) => [m.outcome, m.reported_by, m.note, m.subject_value]);
    // The mark taken back stays listed, with who took it back and why.
    const taken = (evidence.marks as Mark[]).filter((m) => m.retracted);
    expect(taken.map((m) => [m.outcome, m.subject_value, m.retracted?.by])).to.deep.equal([['confirmed_abuse', 'ring_0', a.email]]);
    expect(marks).to.have.deep.members([
      ['chargeback', 'the API (POST /v1/feedback)', 'bank reversal', 'ring_3'],
      ['confirmed_abuse', `analyst ${a.email}`, 'same person', 'Ring.1+x@Gmail.com'],
      ['confirmed_abuse', `review by ${b.email}`, 'bulk', 'ring_2'],
      ['false_positive', `review by ${b.email}`, null, 'ring_1'],
    ]);
  });

  it('says when an event is in the other mode', async () => {
    const live = await request(h.app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_live))
      .send(aSignup({ external_user_id: 'live_one' }))
      .expect(200);
    const res = await a.get(`/events/${live.body.id}`).expect(404);
    expect(res.body.message).to.equal(`No event ${live.body.id} in test mode; it exists in live mode (switch modes at the top).`);
    expect((await a.get('/events/evt_nowhere').expect(404)).body.message).to.equal('No event evt_nowhere.');
  });

  it('compares the last 24 h with the day before and last week, with the clusters new accounts made and the marks undone', async () => {
    const o = (await a.get('/overview').expect(200)).body;
    expect(o.windows.map((w: { name: string }) => w.name)).to.deep.equal(['today', 'yesterday', 'last_week']);
    expect(o.compare.verdicts.today).to.deep.equal({ allow: 1, review: 4, block: 0 });
    expect(o.compare.verdicts.yesterday).to.deep.equal({ allow: 0, review: 0, block: 0 });
    expect(o.compare.activity.today).to.include({
      opened: 4,
      approved: 1,
      denied: 2,
      confirmed_abuse: 1,
      chargeback: 1,
      false_positive: 0,
      marks_undone: 1,
    });
    expect(o.compare.reasons.find((r: { code: string }) => r.code === 'proxy_ip').counts).to.deep.equal({
      today: 4,
      yesterday: 0,
      last_week: 0,
    });
    expect(o.compare.clusters.today).to.deep.equal({ made: 1, grown: 0, confirmed: 1, capped: false });
    const today = o.windows[0];
    const list = (await a.get(`/cluster-changes?from=${today.from}&to=${today.to}`).expect(200)).body;
    expect(list.clusters).to.deep.equal([
      { id: (await a.get(`/events/${ring[0]}`)).body.cluster.id, accounts: 4, new_accounts: 4, change: 'made', confirmed_abuse: true },
    ]);
    // The undone denial of ring_0 is counted, and its count leads to that review's event.
    const undone = (await a.get(`/events?undone_from=${today.from}&undone_to=${today.to}`).expect(200)).body;
    expect(undone.events.map((e: { id: string }) => e.id)).to.deep.equal([ring[0]]);
  });

  it("looks a saved query's email up as the graph keeps it, and says so", async () => {
    const res = (await a.post('/queries/linked-to-email/run', { email: 'Ring.2+x@Gmail.com' }).expect(200)).body;
    expect(res.normalised).to.deep.equal({ email: { given: 'Ring.2+x@Gmail.com', used: 'ring2@gmail.com' } });
    expect(res.rows.filter((r: { kind: string }) => r.kind === 'account').map((r: { value: string }) => r.value)).to.deep.equal([
      'ring_0',
      'ring_1',
      'ring_2',
      'ring_3',
    ]);
    const links = (await a.post('/queries/what-links-accounts/run', { account: 'ring_0', other: 'ring_3' }).expect(200)).body;
    expect(links.rows.map((r: { identifiers: string[] }) => r.identifiers)).to.deep.equal([['phone:+1555000999']]);
  });

  it('serves an icon at /favicon.ico', async () => {
    const res = await request(h.app).get('/favicon.ico').redirects(1).expect(200);
    expect(res.headers['content-type']).to.match(/^image\/svg\+xml/);
  });
});
