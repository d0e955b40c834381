// The console API's wire (src/console/console-wire-schema.ts): the generated types match the
// schema, and the drift check fails when either changes alone; the routers register exactly the
// routes the wire names; every one of them, against the real stores, answers a body its response
// schema accepts (and an error in the error shape); and the check refuses a body with a field
// added, renamed or missing.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Router } from 'express';
import request from 'supertest';
import { addAnalyst } from '../../src/console/auth/manage-analysts.js';
import { consoleApi } from '../../src/console/console-routes.js';
import { CONSOLE_ROUTES } from '../../src/console/console-wire-schema.js';
import { createRequestValidator } from '../../src/contract/request-validator.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { anAnalyst, consoleClient, cookieOf, PASSWORD, tokenOf, type ConsoleClient } from '../support/console-session.js';
import { aClientIp } from '../support/fixtures.js';
import { startHttpStandIn, type HttpStandIn } from '../support/http-stand-in.js';
import { aCheckout, aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { conforms, wireChecked, wireProblems } from './wire-conformance.js';

const run = promisify(execFile);
const GENERATE = path.join('scripts', 'generate-console-types.mjs');
const SCHEMA = path.join('src', 'console', 'console-wire-schema.ts');
const GENERATED = path.join('src', 'console', 'generated', 'console-wire.ts');

async function check(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run('node', [GENERATE, '--check', ...args]);
    return { code: 0, stderr };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? '' };
  }
}

// The routes a router registers, as "METHOD /path", its mounted routers' included.
type Stack = { stack: { route?: { path: string; methods: Record<string, boolean> }; handle?: unknown }[] };
const routesOf = (router: Stack): string[] =>
  router.stack.flatMap((layer) => {
    if (layer.route) return Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path}`);
    const inner = layer.handle as Partial<Stack> | undefined;
    return inner?.stack ? routesOf(inner as Stack) : [];
  });

describe('console API: its wire', function () {
  this.timeout(60_000);

  describe('the generated types', () => {
    it('match the schema (the drift check passes)', async () => {
      const result = await check();
      expect(result.stderr).to.match(/matches/);
      expect(result.code, result.stderr).to.equal(0);
    });

    it('fail the drift check when the schema changes a definition, or the generated file is edited', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-console-wire-'));
      try {
        const schema = path.join(dir, 'schema.ts');
        const source = fs.readFileSync(SCHEMA, 'utf8');
        expect(source).to.contain('idle_minutes: int,');
        fs.writeFileSync(schema, source.replace('idle_minutes: int,', 'idle_minutes: int, idle_seconds: int,'));
        const edited = path.join(dir, 'console-wire.ts');
        const generated = fs.readFileSync(GENERATED, 'utf8');
        expect(generated).to.contain('  idle_minutes: number;');
        fs.writeFileSync(edited, generated.replace('  idle_minutes: number;', '  idle_minutes: string;'));
        const [bySchema, byEdit] = await Promise.all([check('--schema', schema), check('--out', edited)]);
        expect(bySchema.code, bySchema.stderr).to.equal(1);
        expect(bySchema.stderr).to.contain(`${GENERATED} is out of date`).and.contain('generated:    idle_seconds: number;');
        expect(byEdit.code, byEdit.stderr).to.equal(1);
        expect(byEdit.stderr).to.contain('checked in:   idle_minutes: string;');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('the routes', () => {
    const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true' };
    // The routes whose answers this file checked.
    const seen = new Set<string>();
    let h: Harness;
    let receiver: HttpStandIn;
    let a: ConsoleClient;
    let admin: ConsoleClient;
    const ring: string[] = [];
    let checkout: string;
    const send = (c: ConsoleClient, method: 'put' | 'delete', to: string, body?: object) => {
      const req = request(h.app)[method](`/console/api${to}`).set('Cookie', c.cookie).set('X-CSRF-Token', c.csrf);
      return (body ? req.send(body) : req).expect(conforms(method.toUpperCase(), to, seen));
    };

    before(async () => {
      h = await verdictHarness(ENV);
      receiver = await startHttpStandIn(() => ({ status: 200 }));
      await setWebhook(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, `${receiver.url}/hooks`);
      for (let i = 0; i < 3; i++) {
        ring.push(
          (
            await h.verdict(
              aSignup({
                ip: IPS.proxy,
                external_user_id: `wire_${i}`,
                email: `wire${i}@shop-mail.com`,
                identity: { phone: '+1555000444' },
              }),
            )
          ).body.id,
        );
      }
      checkout = (await h.verdict(aCheckout({ external_user_id: 'wire_0' }, { card_fingerprint: 'card_wire' }))).body.id;
      await h.graphSettled();
      a = wireChecked(await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'analyst'), seen);
      admin = wireChecked(await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'admin'), seen);
    });
    after(() => receiver.close());

    it('are exactly the ones the wire names', () => {
      const registered = routesOf(consoleApi(h.deps, createRequestValidator()) as unknown as Router & Stack);
      expect([...registered].sort()).to.deep.equal(Object.keys(CONSOLE_ROUTES).sort());
    });

    it('answer the door as the wire says: the one-time link, sign-in, me, the mode, sign-out', async () => {
      const email = `wire-${Date.now()}@example.org`;
      const link = await addAnalyst(h.deps, { tenantId: h.tenant.tenantId, email, role: 'analyst' });
      await request(h.app)
        .post('/console/api/welcome')
        .set('X-Forwarded-For', aClientIp())
        .send({ token: tokenOf(link.signInUrl), password: PASSWORD })
        .expect(conforms('POST', '/welcome', seen))
        .expect(200);
      const signedIn = await request(h.app)
        .post('/console/api/sign-in')
        .set('X-Forwarded-For', aClientIp())
        .send({ email, password: PASSWORD })
        .expect(conforms('POST', '/sign-in', seen))
        .expect(200);
      const cookie = cookieOf(signedIn);
      const me = await request(h.app)
        .get('/console/api/me')
        .set('Cookie', cookie)
        .expect(conforms('GET', '/me', seen))
        .expect(200);
      const c = wireChecked(consoleClient(h.app, cookie, me.body.csrf_token, { email, analystId: link.analystId }), seen);
      await c.post('/mode', { mode: 'live' }).expect(200);
      await c.post('/sign-out').expect(200);
    });

    it('answer the queue, its resolutions and feedback as the wire says', async () => {
      expect((await a.get('/reviews?limit=2').expect(200)).body.next_cursor).to.be.a('string');
      await a.post(`/reviews/${ring[0]}/resolve`, { resolution: 'denied', note: 'wire ring' }).expect(200);
      const many = await a.post('/reviews/resolve-many', { event_ids: [ring[1], 'evt_nope'], resolution: 'approved' }).expect(200);
      expect(many.body.results.map((r: { ok: boolean }) => r.ok)).to.deep.equal([true, false]);
      await a
        .post('/feedback', { subject: { kind: 'external_user_id', value: 'wire_2' }, outcome: 'confirmed_abuse', note: 'same phone' })
        .expect(200);
      await a.post('/feedback', { subject: { kind: 'email', value: 'wire1@shop-mail.com' }, outcome: 'chargeback' }).expect(200);
      const reported = await a
        .post('/feedback/many', { accounts: ['wire_1', 'wire_nobody'], outcome: 'false_positive', note: 'a household' })
        .expect(200);
      expect(reported.body).to.deep.include({ recorded: 1 });
      expect(reported.body.results.map((r: { ok: boolean }) => r.ok)).to.deep.equal([true, false]);
      const listed = (await a.get('/feedback?email=wire1@shop-mail.com').expect(200)).body.feedback;
      await admin.post(`/feedback/${listed[0].feedback_id}/retract`, { note: 'reported by mistake' }).expect(200);
    });

    it('answer events, accounts, clusters and marks as the wire says', async () => {
      await h.graphSettled();
      await a.get('/events?external_user_id=wire_0&limit=1').expect(200);
      // One with a resolved review, one never a review.
      expect((await a.get(`/events/${ring[0]}`).expect(200)).body.review).to.include({ status: 'denied' });
      expect((await a.get(`/events/${checkout}`).expect(200)).body).not.to.have.property('review');
      await a.get('/accounts/wire_0').expect(200);
      const { cluster_id: clusterId } = (await a.get(`/events/${ring[2]}/cluster`).expect(200)).body;
      await a.get('/accounts/wire_2/cluster').expect(200);
      await a.get(`/clusters/${encodeURIComponent(clusterId)}`).expect(200);
      const page = (await a.get(`/clusters/${encodeURIComponent(clusterId)}/members?limit=2`).expect(200)).body;
      expect(page.members).to.have.length(2);
      const rest = (await a.get(`/clusters/${encodeURIComponent(clusterId)}/members?cursor=${page.next_cursor}`).expect(200)).body;
      expect(rest.members.map((m: { external_user_id: string }) => m.external_user_id)).not.to.include.members(
        page.members.map((m: { external_user_id: string }) => m.external_user_id),
      );
      expect(page.members.length + rest.members.length).to.equal(page.accounts_total);
      expect((await a.get(`/clusters/${encodeURIComponent(clusterId)}/evidence`).expect(200)).body.marks).to.not.be.empty;
      expect((await a.get('/accounts/wire_2/evidence').expect(200)).body).to.include({ account: 'wire_2' });
      const hub = (await a.get(`/hubs?kind=phone&value=${encodeURIComponent('+1555000444')}`).expect(200)).body;
      expect(hub.accounts_total).to.be.greaterThan(1);
      // A page at a time: the second page starts where the first ended.
      const first = (await a.get(`/hubs?kind=phone&value=${encodeURIComponent('+1555000444')}&limit=2`).expect(200)).body;
      expect(first).to.include({ truncated: true, next_skip: 2 });
      const second = (await a.get(`/hubs?kind=phone&value=${encodeURIComponent('+1555000444')}&limit=2&skip=2`).expect(200)).body;
      expect(second).to.include({ truncated: false }).and.not.have.property('next_skip');
      expect([...first.accounts, ...second.accounts].map((x: { external_user_id: string }) => x.external_user_id)).to.deep.equal(
        hub.accounts.map((x: { external_user_id: string }) => x.external_user_id),
      );
      const marks = (await a.get(`/events/${ring[2]}/evidence`).expect(200)).body.marks as {
        feedback_id: string | null;
        review_event_id?: string;
      }[];
      expect(marks.some((m) => m.feedback_id) && marks.some((m) => m.review_event_id), 'a feedback mark and a review mark').to.equal(true);
      await a.post(`/reviews/${ring[0]}/undo-marks`, { note: 'wrong key' }).expect(200);
    });

    it("answer the saved queries and analysts' own Cypher as the wire says", async () => {
      await a.get('/queries').expect(200);
      await a.post('/queries/shared-identifiers/run', { account: 'wire_0' }).expect(200);
      await a.get('/queries/shared-identifiers/csv?account=wire_0').expect(200);
      await admin.get('/cypher').expect(200);
      await admin.post('/cypher/run', { query: 'MATCH (a:Account) RETURN a.externalId AS account ORDER BY account LIMIT 2' }).expect(200);
      await admin.get('/cypher/history').expect(200);
      await admin
        .post('/cypher/saved', {
          id: 'wire-accounts',
          description: 'accounts',
          query: 'MATCH (a:Account) RETURN a.externalId AS account LIMIT 5',
        })
        .expect(201);
      // A tenant's own query runs through the guard: its answer carries the guard's cost.
      expect((await a.post('/queries/wire-accounts/run', {}).expect(200)).body.guardMs).to.be.a('number');
      await send(admin, 'put', '/cypher/settings', { free_form_roles: 'analyst' }).expect(200);
      await send(admin, 'delete', '/cypher/saved/wire-accounts').expect(200);
    });

    it('answer the overview, its list of clusters, a redelivery and the audit log as the wire says', async () => {
      await h.deps.db.query("UPDATE webhook_deliveries SET status = 'failed', attempts = 15, last_status_code = 500 WHERE tenant_id = $1", [
        h.tenant.tenantId,
      ]);
      const overview = (await a.get('/overview').expect(200)).body;
      const failed = overview.webhook.failed;
      const today = overview.windows[0];
      expect((await a.get(`/cluster-changes?from=${today.from}&to=${today.to}&limit=1`).expect(200)).body.total).to.equal(1);
      await admin.post(`/deliveries/${failed[0].delivery_id}/redeliver`).expect(200);
      expect((await admin.get('/audit?limit=2').expect(200)).body.next_cursor).to.be.a('string');
    });

    it('answer errors in the error shape', async () => {
      await a.get('/events/evt_nowhere').expect(404);
      await a.get('/hubs?kind=phone&value=nobody').expect(404);
      await a.get('/hubs?kind=phone').expect(400);
      await a.get('/reviews?limit=500').expect(400);
      await a.get('/clusters/nowhere/members').expect(404);
      await a.get('/clusters/nowhere/members?cursor=not-a-cursor').expect(400);
      await a.post('/feedback/many', { accounts: ['wire_0'], outcome: 'confirmed_abuse' }).expect(400);
      await a.post('/deliveries/dlv_nope/redeliver').expect(403);
    });

    it('were each checked above', () => {
      expect([...seen].sort()).to.deep.equal(Object.keys(CONSOLE_ROUTES).sort());
    });

    it('are refused with a field the schema does not name, a renamed one or a missing one', async () => {
      const me = (await a.get('/me').expect(200)).body as Record<string, unknown>;
      expect(wireProblems('GET', '/me', 200, me)).to.deep.equal([]);
      expect(wireProblems('GET', '/me', 200, { ...me, avatar_url: 'x' })).to.deep.equal([
        'GET /me (200): Me must NOT have additional properties (avatar_url)',
      ]);
      const { idle_minutes: idle, ...rest } = me;
      expect(wireProblems('GET', '/me', 200, { ...rest, idleMinutes: idle })).to.have.members([
        "GET /me (200): Me must have required property 'idle_minutes'",
        'GET /me (200): Me must NOT have additional properties (idleMinutes)',
      ]);
      const detail = (await a.get(`/events/${ring[2]}`).expect(200)).body as { event: Record<string, unknown> };
      expect(wireProblems('GET', `/events/${ring[2]}`, 200, { ...detail, event: { ...detail.event, risk: 1 } })).to.have.length(1);
      expect(wireProblems('GET', '/nowhere', 200, {})).to.deep.equal([
        'GET /nowhere (200): no route of CONSOLE_ROUTES (src/console/console-wire-schema.ts) matches',
      ]);
    });
  });
});
