// Idempotency-Key on POST /v1/verdict (contract §4.1, §7, §8).
import { expect } from 'chai';
import request from 'supertest';
import { bearer } from '../support/fixtures.js';
import { deleteExpiredKeys } from '../../src/verdicts/idempotency-store.js';
import { aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

describe('POST /v1/verdict with an Idempotency-Key', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await verdictHarness();
  });

  const send = (raw: string, key?: string, apiKey = h.tenant.keys.sk_test) => {
    const r = request(h.app).post('/v1/verdict').set(bearer(apiKey)).set('Content-Type', 'application/json');
    return (key === undefined ? r : r.set('Idempotency-Key', key)).send(raw);
  };
  const eventCount = async () =>
    (await h.deps.db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [h.tenant.tenantId])).rows[0].n as number;

  it('replays the original response byte for byte and stores one event', async () => {
    const raw = JSON.stringify(aSignup({ ip: '100.64.90.1' }));
    const first = await send(raw, 'attempt-1');
    const second = await send(raw, 'attempt-1');
    expect(first.status).to.equal(200);
    expect(second.status).to.equal(200);
    expect(second.text).to.equal(first.text);
    expect(await eventCount()).to.equal(1);
  });

  it('answers 409 idempotency_conflict for one changed byte, and for a different field order', async () => {
    const body = aSignup({ ip: '100.64.90.2', user_agent: 'Mozilla/5.0' });
    const raw = JSON.stringify(body);
    await send(raw, 'attempt-2').expect(200);
    const changed = await send(raw.replace('Mozilla/5.0', 'Mozilla/5.1'), 'attempt-2');
    expect(changed.status).to.equal(409);
    expect(changed.body.error).to.equal('idempotency_conflict');
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()));
    expect((await send(reordered, 'attempt-2')).status).to.equal(409);
    // Retrying the conflicting body never succeeds.
    expect((await send(reordered, 'attempt-2')).status).to.equal(409);
    expect(await eventCount()).to.equal(1);
  });

  it('does not re-count velocity on a replay', async () => {
    const raw = (n: number) => JSON.stringify(aSignup({ ip: '100.64.90.3', email: `same${n}@shop-mail.com` }));
    for (let i = 0; i < 5; i++) await send(raw(i), `k-${i}`).expect(200);
    // Five signups so far; replaying the fifth ten times must not make a sixth.
    for (let i = 0; i < 10; i++) expect((await send(raw(4), 'k-4')).body.verdict).to.equal('allow');
    const sixth = await send(raw(5), 'k-5');
    expect(sixth.body.verdict).to.equal('review');
    expect(sixth.body.reasons[0].detail.count).to.equal(6);
  });

  it('turns 30 concurrent identical requests into one event, counted once', async () => {
    const raw = JSON.stringify(aSignup({ ip: '100.64.90.4' }));
    const results = await Promise.all(Array.from({ length: 30 }, () => send(raw, 'burst')));
    expect(results.map((r) => r.status)).to.deep.equal(Array(30).fill(200));
    expect(new Set(results.map((r) => r.text)).size).to.equal(1);
    expect(await eventCount()).to.equal(1);
    const next = await send(JSON.stringify(aSignup({ ip: '100.64.90.4' })));
    const { rows } = await h.deps.db.query('SELECT signals FROM events WHERE id = $1', [next.body.id]);
    expect(rows[0].signals.velocity.ipSignups).to.equal(2);
  });

  it('ignores an empty key and one over 255 characters, as if absent', async () => {
    const raw = JSON.stringify(aSignup({ ip: '100.64.90.5' }));
    const long = 'k'.repeat(256);
    const a = await send(raw, long);
    const b = await send(raw, long);
    expect(a.body.id).to.not.equal(b.body.id);
    const c = await send(raw, '');
    expect(c.status).to.equal(200);
    expect(await eventCount()).to.equal(3);
    const max = 'k'.repeat(255);
    expect((await send(raw, max)).text).to.equal((await send(raw, max)).text);
  });

  it('scopes keys to tenant and mode', async () => {
    const raw = JSON.stringify(aSignup({ ip: '100.64.90.6' }));
    const test = await send(raw, 'shared-key');
    const live = await send(raw, 'shared-key', h.tenant.keys.sk_live);
    expect(live.status).to.equal(200);
    expect(live.body.id).to.not.equal(test.body.id);
  });

  it('stores no replay for a rejected request', async () => {
    const bad = JSON.stringify({ event_type: 'signup' });
    expect((await send(bad, 'bad-then-good')).status).to.equal(400);
    const good = await send(JSON.stringify(aSignup({ ip: '100.64.90.7' })), 'bad-then-good');
    expect(good.status).to.equal(200);
  });

  it('forgets a key after 24 h: an expired record is taken over, and housekeeping deletes it', async () => {
    const raw = JSON.stringify(aSignup({ ip: '100.64.90.8' }));
    const first = await send(raw, 'old-key');
    await h.deps.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND key = 'old-key'`, [
      h.tenant.tenantId,
    ]);
    const other = await send(JSON.stringify(aSignup({ ip: '100.64.90.9' })), 'old-key');
    expect(other.status).to.equal(200);
    expect(other.body.id).to.not.equal(first.body.id);
    await h.deps.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND key = 'old-key'`, [
      h.tenant.tenantId,
    ]);
    expect(await deleteExpiredKeys(h.deps.db, new Date())).to.be.at.least(1);
    const { rows } = await h.deps.db.query('SELECT 1 FROM idempotency_keys WHERE tenant_id = $1', [h.tenant.tenantId]);
    expect(rows).to.deep.equal([]);
  });

  it('is ignored harmlessly on other endpoints', async () => {
    const res = await request(h.app).get('/v1/events').set(bearer(h.tenant.keys.sk_test)).set('Idempotency-Key', 'whatever');
    expect(res.status).to.equal(200);
  });
});
