// Taking velocity back: a request that does not commit removes its own additions and
// nothing another request added, in the distinct-value sets too (cards per ip, devices per
// account), whether the other request is a twin with the same key or an unrelated one; and an
// erasure removes a person's members from every set, whichever policy judged their events.
import { expect } from 'chai';
import request from 'supertest';
import { defaultPolicy } from '../../src/engine/policy.js';
import { erasePerson } from '../../src/lifecycle/erase-person.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { redisReady } from '../../src/redis/redis-ready.js';
import { countersFor, countVelocity } from '../../src/velocity/velocity-store.js';
import { aDocument } from '../policies/policy-builders.js';
import { bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { aCheckout, verdictHarness } from '../support/verdict-harness.js';

describe('velocity taken back', function () {
  this.timeout(60_000);
  const scope = () => ({ tenantId: `ten_velocity_${Math.random().toString(36).slice(2, 10)}`, mode: 'test' as const });
  const readyDeps = async () => {
    const deps = testDeps();
    await redisReady(deps.redis, 10_000);
    return deps;
  };

  it('removes only what the failed request added to a set of distinct cards, never a card another request added', async () => {
    const deps = await readyDeps();
    const s = scope();
    const checkout = (eventId: string, card: string) =>
      countersFor(s, { eventType: 'checkout_attempt', eventId, ip: '198.51.100.40', card, amount: 5000 }, defaultPolicy);
    const now = Date.now();
    // A and B both bring card X from one ip (a twin, or an unrelated request); B commits, A fails.
    const a = await countVelocity(deps.redis, checkout('evt_a', 'card_x'), now);
    const b = await countVelocity(deps.redis, checkout('evt_b', 'card_x'), now + 1);
    expect(a.signal.ipDistinctCards).to.equal(1);
    expect(b.signal.ipDistinctCards).to.equal(1);
    await a.undo();
    // B's card is still counted: C, with card Y, sees two distinct cards.
    const c = await countVelocity(deps.redis, checkout('evt_c', 'card_y'), now + 2);
    expect(c.signal.ipDistinctCards).to.equal(2);
    // And in the other order: the committed one first, the failed one after.
    const d = await countVelocity(deps.redis, checkout('evt_d', 'card_y'), now + 3);
    await d.undo();
    expect((await countVelocity(deps.redis, checkout('evt_e', 'card_z'), now + 4)).signal.ipDistinctCards).to.equal(3);
  });

  it("removes only the failed request's device from an account's distinct devices", async () => {
    const deps = await readyDeps();
    const s = scope();
    const login = (eventId: string, deviceId: string) =>
      countersFor(s, { eventType: 'login', eventId, account: 'acct_1', deviceId }, defaultPolicy);
    const now = Date.now();
    const committed = await countVelocity(deps.redis, login('evt_1', 'dev_a'), now);
    const failed = await countVelocity(deps.redis, login('evt_2', 'dev_a'), now + 1);
    expect(committed.signal.accountDistinctDevices).to.equal(1);
    await failed.undo();
    expect((await countVelocity(deps.redis, login('evt_3', 'dev_b'), now + 2)).signal.accountDistinctDevices).to.equal(2);
  });

  it("keeps the winner's card when idempotency twins race and the loser takes its counts back", async () => {
    const h = await verdictHarness();
    const ip = '198.51.100.41';
    const body = aCheckout({ ip }, { card_fingerprint: 'card_twin' });
    const twins = await Promise.all(
      [0, 1, 2].map(() =>
        request(h.app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test)).set('Idempotency-Key', 'twin-checkout').send(body),
      ),
    );
    expect(twins.map((r) => r.status)).to.deep.equal([200, 200, 200]);
    expect(new Set(twins.map((r) => r.body.id)).size).to.equal(1);
    // Whatever the losers took back, the winner's card stays: the next card makes two.
    const next = await request(h.app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send(aCheckout({ ip }, { card_fingerprint: 'card_next' }))
      .expect(200);
    const { rows } = await h.deps.db.query('SELECT signals FROM events WHERE id = $1', [next.body.id]);
    expect(rows[0].signals.velocity.ipDistinctCards).to.equal(2);
  });

  it("erases a person's members from every set, under the scope's published policy (small amounts up to 500)", async () => {
    const h = await verdictHarness();
    const s = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const version = await publishPolicy(h.deps, s, { document: aDocument({ card_probe_pattern: { max_amount: 500 } }) });
    await until('the published policy in force here', async () => {
      await h.deps.policies.refresh(s);
      return h.deps.policies.forScope(s).version === version ? true : undefined;
    });
    // 300 minor units: small under this tenant's policy (not under the default's 100).
    const res = await request(h.app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send(aCheckout({ external_user_id: 'erase_me', ip: '198.51.100.42' }, { card_fingerprint: 'card_erase', amount: 300 }))
      .expect(200);
    const members = async () => {
      const keys = await h.deps.redis.keys(`vel:{${s.tenantId}:test}:*`);
      const all = await Promise.all(keys.map((k) => h.deps.redis.zrange(k, '0', '-1')));
      return all.flat().filter((m) => m.includes(res.body.id));
    };
    // Counted in the card, the small-amount card and ip, and the ip's distinct cards.
    expect(await members()).to.have.length(4);
    const erased = await erasePerson(h.deps, s, { kind: 'external_user_id', value: 'erase_me' }, { requestedBy: 'test' });
    expect(erased.velocityMembers).to.equal(4);
    expect(await members()).to.deep.equal([]);
  });
});
