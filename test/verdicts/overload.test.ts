// Past saturation (src/http/overload-gate.ts, README "Past saturation"): while this process's event
// loop or its Postgres pool has a standing queue, a verdict is refused at once with 503 and
// retry-after, before any store is touched; a burst is absorbed, and verdicts are served again once
// the queue drains. The queues are made for real: this process's loop kept busy in 50 ms slices,
// and every connection of a small pool held by a transaction.
import { expect } from 'chai';
import request from 'supertest';
import { bearer } from '../support/fixtures.js';
import { aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

const busyFor = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // The loop's queue, made on purpose.
  }
};

// Keeps the loop busy in slices of `sliceMs`, letting I/O and timers run between them, for `totalMs`.
function hog(totalMs: number, sliceMs: number): Promise<void> {
  const until = performance.now() + totalMs;
  return new Promise((resolve) => {
    const slice = () => {
      busyFor(sliceMs);
      if (performance.now() < until) setImmediate(slice);
      else resolve();
    };
    setImmediate(slice);
  });
}

const storedEvents = async (h: Harness) =>
  Number((await h.deps.db.query('SELECT count(*) AS n FROM events WHERE tenant_id = $1', [h.tenant.tenantId])).rows[0].n);

describe('past saturation', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await verdictHarness({ OVERLOAD_LAG_MS: '20', OVERLOAD_INTERVAL_MS: '100' });
  });

  const send = () => request(h.app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test)).send(aSignup());

  it('serves every verdict of an ordinary load, and absorbs one long pause', async () => {
    for (let i = 0; i < 20; i++) expect((await send()).status).to.equal(200);
    // One 150 ms pause is a burst, not a standing queue: the verdict sent during it is served.
    const during = send().then((res) => res);
    await hog(150, 150);
    expect((await during).status).to.equal(200);
  });

  it('refuses verdicts with 503 and retry-after while the queue stands, stores nothing for them, and serves again after', async () => {
    const before = await storedEvents(h);
    const refusedBefore = Number(
      / (\d+)$/m.exec(await h.deps.metrics.registry.getSingleMetricAsString('doorman_verdicts_refused_total'))?.[1],
    );
    await send();
    const hogged = hog(1200, 50);
    // Sent while the loop is busy: each goes out between two slices.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => new Promise((resolve) => setTimeout(resolve, 100 + i * 80)).then(() => send())),
    );
    await hogged;
    const refused = answers.filter((r) => r.status === 503);
    expect(refused.length, `statuses ${answers.map((r) => r.status).join(' ')}`).to.be.greaterThan(0);
    for (const r of refused) {
      expect(r.headers['retry-after']).to.equal('1');
      expect(r.body.error).to.equal('internal');
      expect(r.body.message).to.match(/past its capacity/);
    }
    expect(answers.every((r) => r.status === 200 || r.status === 503)).to.equal(true);
    // A refused verdict left nothing: the events stored are the ones answered 200 (and the first).
    const served = answers.length - refused.length;
    expect(await storedEvents(h)).to.equal(before + 1 + served);
    const refusedAfter = Number(
      / (\d+)$/m.exec(await h.deps.metrics.registry.getSingleMetricAsString('doorman_verdicts_refused_total'))?.[1],
    );
    expect(refusedAfter - refusedBefore).to.equal(refused.length);
    // The queue drained: served again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await send()).status).to.equal(200);
  });

  it('refuses verdicts while requests wait for a Postgres connection, and serves the one that waited once it gets one', async () => {
    const small = await verdictHarness({ OVERLOAD_LAG_MS: '20', OVERLOAD_INTERVAL_MS: '100', PG_POOL_MAX: '2' });
    const post = () => request(small.app).post('/v1/verdict').set(bearer(small.tenant.keys.sk_test)).send(aSignup());
    expect((await post()).status).to.equal(200);
    // Every connection of the pool held, as a slow database holds them.
    const held = await Promise.all([small.deps.db.connect(), small.deps.db.connect()]);
    // Sent now (supertest sends on then), it waits for a connection.
    const waited = post().then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const refused = await post();
    expect(refused.status).to.equal(503);
    expect(refused.headers['retry-after']).to.equal('1');
    for (const client of held) client.release();
    expect((await waited).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await post()).status).to.equal(200);
  });
});
