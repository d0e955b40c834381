// The console's resolutions (one, or several at once) and feedback are written with their audit
// entry in one transaction: when the audit log refuses the entry, the work is not done
// and the answer is not 200; when it takes it, both are there. The refusal is real: a trigger this
// test installs on console_audit for its own tenant alone raises on insert.
import { expect } from 'chai';
import { anAnalyst, type ConsoleClient } from '../support/console-session.js';
import { aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

describe('console actions and their audit entries', function () {
  this.timeout(60_000);
  let h: Harness;
  let a: ConsoleClient;
  let n = 0;

  before(async () => {
    h = await verdictHarness();
    a = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'analyst');
  });

  // A queued review of its own account (each test makes its own).
  const aReview = async (): Promise<{ eventId: string; account: string }> => {
    const account = `audited_${n++}`;
    const res = await h.verdict(aSignup({ ip: IPS.proxy, external_user_id: account }));
    expect(res.body.verdict).to.equal('review');
    return { eventId: res.body.id as string, account };
  };

  const trigger = () => `audit_refused_${h.tenant.tenantId}`;
  // The audit log refuses this tenant's entries (its sign-in above was written before).
  const refuseAudit = async () => {
    await h.deps.db.query(`CREATE OR REPLACE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.tenant_id = TG_ARGV[0] THEN RAISE EXCEPTION 'the audit log refuses this entry (test)'; END IF; RETURN NEW; END $$`);
    await h.deps.db.query(
      `CREATE TRIGGER ${trigger()} BEFORE INSERT ON console_audit FOR EACH ROW EXECUTE FUNCTION test_refuse_audit('${h.tenant.tenantId}')`,
    );
  };
  afterEach(async () => {
    await h.deps.db.query(`DROP TRIGGER IF EXISTS ${trigger()} ON console_audit`);
  });

  // The review's status, its webhook deliveries, and whether its mark reached the graph (once
  // the outbox is applied).
  const state = async (eventId: string) => {
    const { rows } = await h.deps.db.query<{ status: string; deliveries: number }>(
      `SELECT r.status, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.tenant_id = r.tenant_id AND d.event_id = r.event_id) AS deliveries
         FROM reviews r WHERE r.tenant_id = $1 AND r.event_id = $2`,
      [h.tenant.tenantId, eventId],
    );
    await h.graphSettled();
    const { records } = await h.deps.graph.executeQuery('MATCH (f:Feedback {tenantId: $t, mode: $m, key: $key}) RETURN count(f) AS n', {
      t: h.tenant.tenantId,
      m: 'test',
      key: `review:${eventId}`,
    });
    return { ...rows[0], marked: Number(records[0]!.get('n')) > 0 };
  };
  const audited = async (action: string, subject: string) => {
    const { rows } = await h.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM console_audit WHERE tenant_id = $1 AND action = $2 AND subject = $3',
      [h.tenant.tenantId, action, subject],
    );
    return rows[0]!.n;
  };
  const feedbackRows = async (account: string) => {
    const { rows } = await h.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM feedback WHERE tenant_id = $1 AND subject_value = $2',
      [h.tenant.tenantId, account],
    );
    return rows[0]!.n;
  };

  it('resolves no review when its audit entry cannot be written, and answers 500', async () => {
    const { eventId } = await aReview();
    await refuseAudit();
    const res = await a.post(`/reviews/${eventId}/resolve`, { resolution: 'denied', note: 'unaudited' });
    expect(res.status).to.equal(500);
    expect(await state(eventId)).to.deep.equal({ status: 'pending', deliveries: 0, marked: false });
    expect(await audited('review.resolve', eventId)).to.equal(0);
  });

  it('resolves none of a bulk resolution when the first audit entry cannot be written', async () => {
    const ids = [(await aReview()).eventId, (await aReview()).eventId];
    await refuseAudit();
    const res = await a.post('/reviews/resolve-many', { event_ids: ids, resolution: 'denied', note: 'unaudited bulk' });
    expect(res.status).to.equal(500);
    for (const id of ids) expect(await state(id)).to.deep.equal({ status: 'pending', deliveries: 0, marked: false });
  });

  it('records no feedback when its audit entry cannot be written, and answers 500', async () => {
    const { account } = await aReview();
    await refuseAudit();
    const res = await a.post('/feedback', { subject: { kind: 'external_user_id', value: account }, outcome: 'chargeback' });
    expect(res.status).to.equal(500);
    expect(await feedbackRows(account)).to.equal(0);
    expect(await audited('feedback', `external_user_id:${account}`)).to.equal(0);
  });

  it('writes the work and its audit entry together when the audit log takes it', async () => {
    const one = await aReview();
    await a.post(`/reviews/${one.eventId}/resolve`, { resolution: 'denied' }).expect(200);
    expect(await state(one.eventId)).to.deep.equal({ status: 'denied', deliveries: 1, marked: true });
    expect(await audited('review.resolve', one.eventId)).to.equal(1);
    const ids = [(await aReview()).eventId, (await aReview()).eventId];
    const bulk = await a.post('/reviews/resolve-many', { event_ids: ids, resolution: 'approved' }).expect(200);
    expect(bulk.body.resolved).to.equal(2);
    for (const id of ids) {
      expect(await state(id)).to.deep.equal({ status: 'approved', deliveries: 1, marked: true });
      expect(await audited('review.resolve', id)).to.equal(1);
    }
    await a.post('/feedback', { subject: { kind: 'external_user_id', value: one.account }, outcome: 'chargeback' }).expect(200);
    expect(await feedbackRows(one.account)).to.equal(1);
    expect(await audited('feedback', `external_user_id:${one.account}`)).to.equal(1);
  });
});
