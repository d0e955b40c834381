// Every ready analyst query in cypher/analyst/ runs as written against a graph seeded through
// the API, and answers what its header promises.
import { expect } from 'chai';
import neo4j from 'neo4j-driver';
import request from 'supertest';
import { bearer } from '../support/fixtures.js';
import { aCheckout, aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

describe('analyst queries (cypher/analyst)', function () {
  this.timeout(30_000);
  let h: Harness;
  let firstEvent: string;
  const run = async (name: string, params: Record<string, unknown> = {}) => {
    const { records } = await h.deps.graph.executeQuery(h.deps.cypher.get(`analyst/${name}`), {
      tenantId: h.tenant.tenantId,
      mode: 'test',
      limit: neo4j.int(20),
      ...params,
    });
    return records.map((r) => r.toObject());
  };

  before(async () => {
    h = await verdictHarness({ GRAPH_HUB_THRESHOLD: '3' });
    firstEvent = (
      await h.verdict(aCheckout({ external_user_id: 'ana', email: 'Ana.Lyst+x@gmail.com' }, { card_fingerprint: 'card_shared' }))
    ).body.id;
    await h.verdict(aCheckout({ external_user_id: 'bob', ip: '100.64.9.2' }, { card_fingerprint: 'card_shared' }));
    for (let i = 0; i < 5; i++)
      await h.verdict(aSignup({ external_user_id: `h${i}`, identity: { phone: '0000000000' }, ip: `100.64.9.${10 + i}` }));
    const token = (
      await request(h.app)
        .post('/v1/device')
        .set(bearer(h.tenant.keys.pk_test))
        .send({ components: { gpu: 'x' } })
    ).body.device_token;
    await h.verdict({ event_type: 'login', external_user_id: 'ana', device_token: token });
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'external_user_id', value: 'bob' }, outcome: 'confirmed_abuse' })
      .expect(200);
    await h.graphSettled();
  });

  it('event-cluster: the cluster of an event, with its facts', async () => {
    const rows = await run('event-cluster', { eventId: firstEvent });
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ accounts: 2, confirmedAbuse: true, chargebacks: 0 });
  });

  it('largest-clusters: clusters linking more than one account, largest first', async () => {
    const rows = await run('largest-clusters');
    // The five accounts that share the placeholder phone made it a hub (threshold 3): it links none
    // of them, whichever used it first.
    expect(rows.map((r) => r.accounts)).to.deep.equal([2]);
  });

  it('abusive-clusters: clusters with confirmed abuse', async () => {
    const rows = await run('abusive-clusters');
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ accounts: 2, confirmedAbuse: true });
  });

  it('accounts-sharing-card: every account that used a card', async () => {
    const rows = await run('accounts-sharing-card', { card: 'card_shared' });
    expect(rows.map((r) => r.account)).to.deep.equal(['ana', 'bob']);
  });

  it('hubs: identifiers that stopped linking', async () => {
    const rows = await run('hubs');
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ kind: 'phone', value: '0000000000', accounts: 5 });
  });

  it('linked-to-email: everything in the cluster of a normalised email', async () => {
    const rows = await run('linked-to-email', { email: 'analyst@gmail.com' });
    const members = rows.map((r) => `${r.kind}:${r.value}`);
    expect(members).to.include.members(['account:ana', 'account:bob', 'card:card_shared']);
    expect(members.some((m) => m.startsWith('device:dev_'))).to.equal(true);
  });

  it('shared-identifiers: the accounts sharing an identifier with an account, as paths', async () => {
    const rows = await run('shared-identifiers', { account: 'ana' });
    expect(rows.map((r) => `${r.kind}:${r.value}:${r.other}`)).to.deep.equal(['card:card_shared:bob']);
    expect((rows[0]!.path as { length: number }).length).to.equal(2);
  });

  it('account-devices: the devices an account used', async () => {
    const rows = await run('account-devices', { account: 'ana' });
    expect(rows).to.have.length(1);
    expect(String(rows[0]!.device)).to.match(/^dev_/);
  });

  it('accounts-on-device: the accounts that used a device, first seen on it', async () => {
    const [device] = await run('account-devices', { account: 'ana' });
    const rows = await run('accounts-on-device', { device: device!.device });
    expect(rows.map((r) => r.account)).to.deep.equal(['ana']);
    expect(rows[0]!.firstSeenAt).to.be.a('number').and.equal(device!.firstSeenAt);
  });
});
