// `doorman erase` (GDPR Art. 17): afterwards nothing of the person's raw values is left in
// any of the three stores, looked for in every Postgres table, every node and relationship of the
// tenant in Neo4j and every key and member in Redis; another person's data stays.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { verifyGraph } from '../../src/lifecycle/verify-graph.js';
import { changeList } from '../../src/lists/manage-lists.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { deliverWebhook } from '../../src/webhooks/deliver-webhook.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { doorman } from '../support/cli-runner.js';
import { deviceIdOf, issueToken, recorded } from '../support/device-tokens.js';
import { bearer } from '../support/fixtures.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { graphEntitiesContaining, postgresRowsContaining, redisEntriesContaining, velocityDigest } from '../support/store-search.js';
import { DOMAINS, IPS, verdictHarness } from '../support/verdict-harness.js';

describe('doorman erase', function () {
  this.timeout(120_000);

  it("leaves none of the person's raw values in Postgres, Neo4j or Redis, and keeps everyone else", async () => {
    const h = await verdictHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const tag = randomUUID().slice(0, 8);
    const person = {
      account: `erase_me_${tag}`,
      email: `Erase.Me.${tag}@${DOMAINS.good}`,
      ip: `100.71.${parseInt(tag.slice(0, 2), 16)}.${parseInt(tag.slice(2, 4), 16)}`,
      ua: `EraseAgent/${tag}`,
      phone: `+1555${parseInt(tag, 16) % 10_000_000}`,
      card: `card_erase_${tag}`,
      context: `ctx_${tag}`,
    };
    const token = await issueToken(h.app, h.tenant.keys.pk_test, recorded('desktop-load-1'));
    const device = deviceIdOf(token);
    const send = (body: object) => h.verdict(body);
    const base = { external_user_id: person.account, ip: person.ip, user_agent: person.ua };
    await send({
      event_type: 'signup',
      ...base,
      email: person.email,
      identity: { phone: person.phone },
      device_token: token,
      context: { note: person.context },
    });
    await send({ event_type: 'checkout_attempt', ...base, payment: { card_fingerprint: person.card, amount: 50, currency: 'usd' } });
    await send({ event_type: 'login', ...base, device_token: await issueToken(h.app, h.tenant.keys.pk_test, recorded('desktop-load-1')) });
    const review = await send({ event_type: 'signup', ...base, email: person.email, ip: IPS.tor });
    expect(review.body.verdict).to.equal('review');
    const other = await send({
      event_type: 'signup',
      external_user_id: `stays_${tag}`,
      email: `stays.${tag}@${DOMAINS.good}`,
      ip: '100.64.90.1',
      identity: { phone: '+15550009999' },
    });

    const receiver = await startHttpStandIn((req) => ({ status: 200, body: req.body }));
    try {
      await setWebhook(h.deps, scope, `${receiver.url}/hook`);
      const resolved = await resolveReview(h.deps, scope, {
        eventId: review.body.id,
        resolution: 'denied',
        note: `denied ${person.email}`,
        resolvedBy: 'test',
      });
      await deliverWebhook(h.deps, { deliveryId: resolved.deliveryId, attempt: 1 });
    } finally {
      await receiver.close();
    }
    for (const [kind, value] of [
      ['external_user_id', person.account],
      ['email', person.email],
    ] as const) {
      await request(h.app)
        .post('/v1/feedback')
        .set(bearer(h.tenant.keys.sk_test))
        .send({ subject: { kind, value }, outcome: 'chargeback', note: `about ${value}` })
        .expect(200);
    }
    await changeList(h.deps.db, scope, { action: 'add', list: 'block', kind: 'email', value: person.email });
    await h.graphSettled();

    // Its identifiers: the email, the phone, the device (both tokens are one browser) and the card.
    const raw = [person.account, person.email, person.ip, person.ua, person.phone, person.card, person.context, device];
    const digests = [person.ip, person.card, device, person.account].map(velocityDigest);
    // The search can find them before the erasure.
    expect(await postgresRowsContaining(h.deps, person.email)).not.to.deep.equal([]);
    expect(await graphEntitiesContaining(h.deps, scope.tenantId, person.phone)).to.be.greaterThan(0);
    expect(await redisEntriesContaining(h.deps, digests)).not.to.deep.equal([]);

    const cli = await doorman(['erase', '--tenant', scope.tenantId, '--mode', 'test', '--external-user-id', person.account, '--json']);
    expect(cli.code, cli.stderr).to.equal(0);
    const out = JSON.parse(cli.stdout);
    expect(out).to.deep.include({ ok: true, erased: { events: 4, accounts: 1, identifiers: 4 } });
    expect(out).to.include({ webhook_deliveries: 1, feedback: 2, list_entries: 1 });
    await h.graphSettled();

    for (const value of raw) {
      expect(await postgresRowsContaining(h.deps, value), `Postgres holds ${value}`).to.deep.equal([]);
      expect(await graphEntitiesContaining(h.deps, scope.tenantId, value), `Neo4j holds ${value}`).to.equal(0);
    }
    expect(await redisEntriesContaining(h.deps, [...raw, ...digests, review.body.id]), 'Redis').to.deep.equal([]);

    // What is not personal stays: the events (cleared), their verdicts, the erasure log; the other person whole.
    const { rows } = await h.deps.db.query('SELECT verdict, request FROM events WHERE tenant_id = $1 AND id = $2', [
      scope.tenantId,
      review.body.id,
    ]);
    expect(rows[0]).to.deep.equal({ verdict: 'review', request: { erased: true } });
    const log = await h.deps.db.query('SELECT subject_kind, events, accounts, identifiers FROM erasures WHERE id = $1', [out.erasure_id]);
    expect(log.rows[0]).to.deep.equal({ subject_kind: 'external_user_id', events: 4, accounts: 1, identifiers: 4 });
    const kept = await request(h.app).get(`/v1/events/${other.body.id}`).set(bearer(h.tenant.keys.sk_test));
    expect(kept.body.external_user_id).to.equal(`stays_${tag}`);
    expect(await graphEntitiesContaining(h.deps, scope.tenantId, `stays_${tag}`)).to.be.greaterThan(0);
    // The graph holds what Postgres says, and a rebuild would bring back no mark about the erased
    // events (their feedback row and review stay, without the person).
    expect((await verifyGraph(h.deps, scope)).differences).to.deep.equal([]);
  });

  it('refuses without a subject, or with both', async () => {
    const h = await verdictHarness();
    for (const args of [[], ['--email', 'a@b.c', '--external-user-id', 'x']]) {
      const cli = await doorman(['erase', '--tenant', h.tenant.tenantId, '--mode', 'test', ...args, '--json']);
      expect(cli.code).to.not.equal(0);
      expect(cli.stderr).to.match(/exactly one of --external-user-id and --email/);
    }
  });
});
