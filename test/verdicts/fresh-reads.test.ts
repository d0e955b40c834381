// Fresh reads across the graph writer's apply: a link that the graph writer applies,
// and removes from the outbox, after a verdict read the graph and before the verdict's write is
// in neither the read nor the outbox the write checks. The verdict must still see it. The
// interleaving is made, not waited for: the verdict's write is held back until the writer has
// applied the other link and the outbox holds nothing of the tenant.
import { expect } from 'chai';
import type pg from 'pg';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import type { Deps } from '../../src/deps.js';
import { bearer } from '../support/fixtures.js';
import { rootGraphWriter } from '../support/root-hooks.js';
import { aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

type Reason = { code: string; detail?: Record<string, unknown> };

describe("fresh reads across the graph writer's apply", function () {
  this.timeout(60_000);
  let h: Harness;

  beforeEach(async () => {
    h = await verdictHarness();
  });
  // Whatever a test left stopped, the process's writer runs again.
  afterEach(async () => rootGraphWriter().start());

  // The app, with the verdict's first write held until `meanwhile` has run (the graph read is
  // done by then: signals are gathered before the write).
  const holdingTheWrite = (meanwhile: () => Promise<void>) => {
    let held = false;
    const db = new Proxy(h.deps.db, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver);
        return async (...args: unknown[]) => {
          const q = args[0] as { name?: string };
          if (!held && q && typeof q === 'object' && q.name === 'write-judged-event') {
            held = true;
            await meanwhile();
          }
          return (target.query as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as pg.Pool;
    return { app: createApp({ ...h.deps, db } as Deps), held: () => held };
  };

  // Between the verdict's graph read and its write: the writer applies what waits, and the
  // applied rows leave the outbox.
  const applyEverything = async () => {
    await rootGraphWriter().start();
    await h.graphSettled();
  };

  const storedGraph = async (eventId: string) => {
    const { rows } = await h.deps.db.query<{ graph: Record<string, unknown> | null }>(
      `SELECT signals->'graph' AS graph FROM events WHERE tenant_id = $1 AND id = $2`,
      [h.tenant.tenantId, eventId],
    );
    return rows[0]?.graph;
  };

  it("counts an account whose link the writer applied between the verdict's graph read and its write", async () => {
    const phone = `+1555${String(Date.now()).slice(-7)}`;
    await rootGraphWriter().stop();
    // The first account's link waits in the outbox.
    await request(h.app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send(aSignup({ external_user_id: `fr_a_${phone}`, identity: { phone } }))
      .expect(200);
    const { app, held } = holdingTheWrite(applyEverything);
    const res = await request(app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send(aSignup({ external_user_id: `fr_b_${phone}`, identity: { phone } }))
      .expect(200);
    expect(held()).to.equal(true);
    const cluster = (res.body.reasons as Reason[]).find((r) => r.code === 'identity_cluster');
    expect(cluster?.detail?.linked_accounts, 'the other account on the phone').to.equal(2);
    expect((await storedGraph(res.body.id))?.linkedAccounts).to.equal(2);
  });

  it("blocks a new account on a convicted account's new phone applied between the read and the write", async () => {
    const tag = String(Date.now()).slice(-7);
    const convicted = `fr_convicted_${tag}`;
    await h.verdict(aSignup({ external_user_id: convicted, identity: { phone: `+1556${tag}` } }));
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'external_user_id', value: convicted }, outcome: 'confirmed_abuse' })
      .expect(200);
    await h.graphSettled();
    await rootGraphWriter().stop();
    // The convicted account logs in from a new phone: its link waits.
    await request(h.app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ event_type: 'login', external_user_id: convicted, identity: { phone: `+1557${tag}` } })
      .expect(200);
    const { app, held } = holdingTheWrite(applyEverything);
    const res = await request(app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send(aSignup({ external_user_id: `fr_newcomer_${tag}`, identity: { phone: `+1557${tag}` } }))
      .expect(200);
    expect(held()).to.equal(true);
    expect((res.body.reasons as Reason[]).map((r) => r.code)).to.include('cluster_confirmed_abuse');
    expect((await storedGraph(res.body.id))?.confirmedAbuse).to.equal(true);
  });
});
