// The queue at 10,000 pending reviews: the page and the call that fills it (GET
// /console/api/reviews: the backlog count, the oldest age and a keyset-paged first page) answer
// correctly, oldest first, and the pages meet without gaps or repeats. Its speed is a benchmark's
// figure (bench/console-queue.ts), printed here for information only: timed unit tests fail on a
// busy machine and prove nothing on a quiet one.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { anAnalyst } from '../support/console-session.js';
import { aTenant } from '../support/fixtures.js';
import { seedPendingReviews } from '../support/pending-reviews.js';
import { testDeps } from '../support/test-deps.js';

describe('the review queue at 10,000 pending reviews', function () {
  this.timeout(180_000);

  it('counts the backlog, pages oldest first without gaps, and serves the queue page', async () => {
    const deps = testDeps();
    const tenant = await aTenant(deps);
    // The seeding's own statements get a long timeout; the app under test keeps the default.
    await seedPendingReviews(testDeps({ PG_QUERY_TIMEOUT_MS: '60000' }).db, tenant.tenantId, 10_000);
    const app = createApp(deps);
    const analyst = await anAnalyst(deps, app, tenant.tenantId);

    const first = await analyst.get('/reviews?limit=50').expect(200);
    expect(first.body.pending).to.equal(10_000);
    expect(first.body.reviews).to.have.length(50);
    // Seeded event g is g × 7 s old: the oldest is evt_seed0010000.
    expect(first.body.reviews[0].event_id).to.equal('evt_seed0010000');
    expect(first.body.oldest_created_at).to.equal(first.body.reviews[0].created_at);
    const seen = new Set<string>(first.body.reviews.map((r: { event_id: string }) => r.event_id));
    let cursor: string | undefined = first.body.next_cursor;
    let previous = first.body.reviews.at(-1).created_at as string;
    for (let page = 0; page < 3; page++) {
      const next = await analyst.get(`/reviews?limit=50&cursor=${encodeURIComponent(cursor!)}`).expect(200);
      for (const review of next.body.reviews as { event_id: string; created_at: string }[]) {
        expect(seen.has(review.event_id), `${review.event_id} repeated`).to.equal(false);
        expect(review.created_at >= previous, 'oldest first').to.equal(true);
        seen.add(review.event_id);
        previous = review.created_at;
      }
      cursor = next.body.next_cursor;
    }
    expect(seen.size).to.equal(200);
    expect([...seen].at(-1)).to.equal('evt_seed0009801');

    const started = performance.now();
    const page = await request(app).get('/console/queue').set('Cookie', analyst.cookie).expect(200);
    expect(page.text).to.match(/<div id="app">/);
    const timing = /total;dur=([\d.]+)/.exec(String(first.headers['server-timing']));
    console.log(
      `      queue at 10,000 pending (information only; bench/console-queue.ts measures it): /console/api/reviews ${timing?.[1] ?? '?'} ms server time, /console/queue ${(performance.now() - started).toFixed(1)} ms`,
    );
  });
});
