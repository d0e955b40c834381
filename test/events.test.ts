// GET /v1/events (keyset pages, filters), PATCH /v1/events/{id} (write-once user binding).
import { expect } from 'chai';
import request from 'supertest';
import { bearer } from './support/fixtures.js';
import { aSignup, IPS, verdictHarness, type Harness } from './support/verdict-harness.js';

describe('stored events', () => {
  let h: Harness;
  const ids: string[] = [];
  before(async () => {
    h = await verdictHarness();
    for (let i = 0; i < 7; i++) ids.push((await h.verdict(aSignup({ ip: i % 2 ? IPS.proxy : IPS.clean }))).body.id);
    ids.push((await h.verdict({ event_type: 'login', external_user_id: 'u_login' })).body.id);
  });
  const get = (path: string, key = h.tenant.keys.sk_test) => request(h.app).get(path).set(bearer(key));

  describe('GET /v1/events', () => {
    it('lists newest first and pages with next_cursor until it is absent', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await get(`/v1/events?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).to.equal(200);
        seen.push(...res.body.events.map((e: { id: string }) => e.id));
        cursor = res.body.next_cursor;
        pages += 1;
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal([...ids].reverse());
    });

    it('filters by event_type and verdict', async () => {
      const logins = await get('/v1/events?event_type=login');
      expect(logins.body.events.map((e: { id: string }) => e.id)).to.deep.equal([ids[7]]);
      expect(logins.body).not.to.have.property('next_cursor');
      const reviews = await get('/v1/events?verdict=review&limit=100');
      expect(reviews.body.events).to.have.length(3);
      for (const e of reviews.body.events) expect(e.verdict).to.equal('review');
    });

    it('defaults to 50 and rejects a limit outside 1..100 or a forged cursor', async () => {
      expect((await get('/v1/events')).body.events).to.have.length(8);
      for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'verdict=maybe', 'cursor=nonsense']) {
        const res = await get(`/v1/events?${bad}`);
        expect(res.status, bad).to.equal(400);
        expect(res.body.error).to.equal('invalid_request');
      }
    });

    it("shows only the calling key's tenant and mode", async () => {
      expect((await get('/v1/events', h.tenant.keys.sk_live)).body.events).to.deep.equal([]);
    });
  });

  describe('PATCH /v1/events/{id}', () => {
    const patch = (id: string, body: unknown, key = h.tenant.keys.sk_test) =>
      request(h.app)
        .patch(`/v1/events/${id}`)
        .set(bearer(key))
        .send(body as object);

    it('binds once, accepts the same value again, and refuses a different one with 409 conflict', async () => {
      const id = ids[0]!;
      expect((await patch(id, { external_user_id: 'user_a' })).body).to.deep.equal({ ok: true });
      expect((await patch(id, { external_user_id: 'user_a' })).body).to.deep.equal({ ok: true });
      const conflict = await patch(id, { external_user_id: 'user_b' });
      expect(conflict.status).to.equal(409);
      expect(conflict.body.error).to.equal('conflict');
      expect((await get(`/v1/events/${id}`)).body.external_user_id).to.equal('user_a');
    });

    it('treats the id sent at verdict time as the first write', async () => {
      expect((await patch(ids[7]!, { external_user_id: 'u_login' })).status).to.equal(200);
      expect((await patch(ids[7]!, { external_user_id: 'someone_else' })).status).to.equal(409);
    });

    it('answers 404 for an unknown event or one of the other mode, and 400 for a bad body', async () => {
      expect((await patch('evt_missing', { external_user_id: 'x' })).status).to.equal(404);
      expect((await patch(ids[1]!, { external_user_id: 'x' }, h.tenant.keys.sk_live)).status).to.equal(404);
      for (const body of [{ external_user_id: '' }, { external_user_id: 'x'.repeat(257) }, {}, { external_user_id: 'x', extra: 1 }]) {
        const res = await patch(ids[1]!, body);
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal('invalid_request');
      }
    });
  });
});
