// The client's events (list as an async iterator over next_cursor, get, attachUser) and
// feedback.report() against a real `doorman serve` child, each tenant fresh.
import { expect } from 'chai';
import { doormanClient, DoormanError, type DoormanClient, type StoredEvent } from '../../clients/typescript/dist/doorman-client.js';
import { afterSignup } from '../../clients/typescript/examples/events-and-feedback.js';
import { clientServer } from '../support/client-server.js';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup, IPS } from '../support/verdict-harness.js';

describe('client: events and feedback', function () {
  this.timeout(60_000);
  let tenant: TestTenant;
  let doorman: DoormanClient;
  const ids: string[] = [];

  before(async () => {
    const server = await clientServer();
    tenant = await aTenant(testDeps());
    doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: server.url });
    for (let i = 0; i < 5; i++) {
      const result = await doorman.screen(aSignup(i === 2 ? { ip: IPS.proxy } : {}) as never, { failOpen: false });
      if (!result.failedOpen) ids.push(result.id);
    }
    expect(ids).to.have.length(5);
  });

  it('lists every event newest first, following next_cursor page by page', async () => {
    const seen: StoredEvent[] = [];
    for await (const event of doorman.events.list({ limit: 2 })) seen.push(event);
    expect(seen.map((e) => e.id)).to.deep.equal([...ids].reverse());
    const pages = [];
    for await (const page of doorman.events.pages({ limit: 2 })) pages.push(page);
    expect(pages.map((p) => p.events.length)).to.deep.equal([2, 2, 1]);
    expect(pages.map((p) => typeof p.next_cursor)).to.deep.equal(['string', 'string', 'undefined']);
  });

  it('filters by verdict and event type, and stops early when the loop does', async () => {
    const reviews = [];
    for await (const event of doorman.events.list({ verdict: 'review', event_type: 'signup' })) reviews.push(event.id);
    expect(reviews).to.deep.equal([ids[2]]);
    let taken = 0;
    for await (const _event of doorman.events.list({ limit: 1 })) if (++taken === 2) break;
    expect(taken).to.equal(2);
    const none = await doorman.events
      .list({ limit: 0 })
      .next()
      .catch((err: DoormanError) => err);
    expect((none as DoormanError).code).to.equal('invalid_request');
  });

  it('gets one event, attaches a user once (the same value again is fine), and refuses another with 409 conflict, not retried', async () => {
    const id = ids[0]!;
    const stored = await doorman.events.get(id);
    expect(stored).to.include({ id, event_type: 'signup', verdict: 'allow' });
    expect(stored.created_at).to.be.a('string');
    await doorman.events.attachUser(id, 'usr_late');
    await doorman.events.attachUser(id, 'usr_late');
    expect((await doorman.events.get(id)).external_user_id).to.equal('usr_late');
    const conflict = await doorman.events.attachUser(id, 'usr_other').catch((err: DoormanError) => err);
    expect(conflict).to.be.instanceOf(DoormanError);
    expect([(conflict as DoormanError).status, (conflict as DoormanError).code, (conflict as DoormanError).attempts]).to.deep.equal([
      409,
      'conflict',
      1,
    ]);
    const missing = await doorman.events.get('evt_nope').catch((err: DoormanError) => err);
    expect([(missing as DoormanError).status, (missing as DoormanError).code]).to.deep.equal([404, 'not_found']);
  });

  it('reports feedback with a receipt that tells a stored report from a deduplicated repost, and gets not_found for a subject that resolves to nothing', async () => {
    const first = await doorman.feedback.report({
      subject: { kind: 'event_id', value: ids[1]! },
      outcome: 'confirmed_abuse',
      note: 'card testing',
    });
    const repost = await doorman.feedback.report({
      subject: { kind: 'event_id', value: ids[1]! },
      outcome: 'confirmed_abuse',
      note: 'card testing',
    });
    expect([first, repost]).to.deep.equal([
      { ok: true, duplicate: false },
      { ok: true, duplicate: true },
    ]);
    const { rows } = await testDeps().db.query('SELECT count(*)::int AS n FROM feedback WHERE tenant_id = $1', [tenant.tenantId]);
    expect(rows[0].n).to.equal(1);
    const missing = await doorman.feedback
      .report({ subject: { kind: 'external_user_id', value: 'nobody' }, outcome: 'chargeback' })
      .catch((err: DoormanError) => err);
    expect((missing as DoormanError).code).to.equal('not_found');
  });

  it("runs the README's events-and-feedback example: binds the user, reads the event, lists pending reviews, reports once", async () => {
    const [id, review] = [ids[3]!, ids[2]!];
    const { event, receipt, reviews } = await afterSignup(doorman, id, 'usr_example');
    expect(event).to.include({ id, external_user_id: 'usr_example' });
    expect(reviews).to.deep.equal([review]);
    expect(receipt).to.deep.equal({ ok: true, duplicate: false });
    expect((await afterSignup(doorman, id, 'usr_example')).receipt).to.deep.equal({ ok: true, duplicate: true });
    const { rows } = await testDeps().db.query(
      "SELECT outcome, note FROM feedback WHERE tenant_id = $1 AND subject_kind = 'external_user_id' AND subject_value = 'usr_example'",
      [tenant.tenantId],
    );
    expect(rows).to.deep.equal([{ outcome: 'chargeback', note: 'dispute dp_123' }]);
  });
});
