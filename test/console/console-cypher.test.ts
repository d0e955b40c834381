// The console's Cypher API against the real stores: who may run free-form Cypher (admins by
// default, every analyst once an admin says so, the setting audited and an admin's alone), a run's
// answer and its refusals, the analyst's own history, and the tenant's saved queries (saved through
// the guard, listed as the tenant's own, run by any analyst, deleted by their author or an admin).
import { expect } from 'chai';
import request from 'supertest';
import { anAnalyst as signedIn, type ConsoleClient } from '../support/console-session.js';
import { aCheckout, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { conforms, wireChecked } from './wire-conformance.js';

// Every analyst's answers are checked against the console wire's schema (wire-conformance.ts).
const anAnalyst = async (...args: Parameters<typeof signedIn>) => wireChecked(await signedIn(...args));

describe("console API: analysts' own Cypher", function () {
  this.timeout(60_000);
  let h: Harness;
  let analyst: ConsoleClient;
  let admin: ConsoleClient;
  const put = (c: ConsoleClient, path: string, body: object) =>
    request(h.app).put(`/console/api${path}`).set('Cookie', c.cookie).set('X-CSRF-Token', c.csrf).send(body).expect(conforms('PUT', path));
  const del = (c: ConsoleClient, path: string) =>
    request(h.app).delete(`/console/api${path}`).set('Cookie', c.cookie).set('X-CSRF-Token', c.csrf).expect(conforms('DELETE', path));
  const ACCOUNTS =
    'MATCH (a:Account)-[:LINKED]->(:Identifier {kind: "card", value: $card}) RETURN a.externalId AS account ORDER BY account';

  before(async () => {
    h = await verdictHarness();
    await h.verdict(aCheckout({ external_user_id: 'c1' }, { card_fingerprint: 'card-console' }));
    await h.verdict(aCheckout({ external_user_id: 'c2' }, { card_fingerprint: 'card-console' }));
    analyst = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'analyst');
    admin = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'admin');
  });

  it('lets admins only run it by default, and every analyst once an admin says so (audited)', async () => {
    expect((await analyst.get('/cypher').expect(200)).body).to.include({
      allowed: false,
      free_form_roles: 'admin',
      row_cap: 10_000,
      timeout_ms: 10_000,
    });
    await analyst.post('/cypher/run', { query: 'RETURN 1 AS x' }).expect(403);
    await put(analyst, '/cypher/settings', { free_form_roles: 'analyst' }).expect(403);
    await put(admin, '/cypher/settings', { free_form_roles: 'everyone' }).expect(400);
    await put(admin, '/cypher/settings', { free_form_roles: 'analyst' }).expect(200);
    expect((await analyst.get('/cypher').expect(200)).body).to.include({ allowed: true, free_form_roles: 'analyst' });
    const run = await analyst.post('/cypher/run', { query: ACCOUNTS, params: { card: 'card-console' } }).expect(200);
    expect(run.body).to.deep.include({ columns: ['account'], rows: [{ account: 'c1' }, { account: 'c2' }], truncated: false });
    const audit = await admin.get('/audit').expect(200);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).to.include.members(['cypher.settings', 'cypher.run']);
  });

  it("refuses in the error shape, names the clause and its position, and keeps the analyst's history", async () => {
    const refused = await admin.post('/cypher/run', { query: 'MATCH (n)\nDETACH DELETE n' }).expect(400);
    expect(refused.body).to.deep.include({ error: 'invalid_request', message: 'Refused: DELETE (analysts read only) (line 2, column 1).' });
    expect(refused.body.details.refusal).to.deep.equal({ reason: 'DELETE (analysts read only)', line: 2, column: 1 });
    await admin.post('/cypher/run', { query: 'RETURN $x AS x' }).expect(400);
    await admin.post('/cypher/run', { query: 'RETURN 1', params: { 'bad-name': 1 } }).expect(400);
    const history = (await admin.get('/cypher/history').expect(200)).body.history as { query: string; refused: string | null }[];
    expect(history[history.length - 1]).to.deep.include({ query: 'MATCH (n)\nDETACH DELETE n', refused: 'DELETE (analysts read only)' });
    expect(
      history.every((e) => e.query !== ACCOUNTS),
      "only the analyst's own runs",
    ).to.equal(true);
  });

  it('saves a query for the tenant through the guard; any analyst runs it; its author or an admin deletes it', async () => {
    await admin.post('/cypher/saved', { id: 'card-accounts', description: 'accounts of a card', query: 'CALL db.labels()' }).expect(400);
    await admin.post('/cypher/saved', { id: 'shared-identifiers', query: ACCOUNTS }).expect(409);
    expect(
      (await admin.post('/cypher/saved', { id: 'card-accounts', description: 'accounts of a card', query: ACCOUNTS }).expect(201)).body,
    ).to.deep.equal({ id: 'card-accounts', parameters: ['card'] });
    await admin.post('/cypher/saved', { id: 'card-accounts', query: ACCOUNTS }).expect(409);
    const listed = (await analyst.get('/queries').expect(200)).body.queries.find((q: { id: string }) => q.id === 'card-accounts');
    expect(listed).to.deep.include({ own: true, query: ACCOUNTS, created_by: admin.email, parameters: [{ name: 'card', hint: '' }] });
    expect((await analyst.post('/queries/card-accounts/run', { card: 'card-console' }).expect(200)).body.rows).to.deep.equal([
      { account: 'c1' },
      { account: 'c2' },
    ]);
    const csv = await analyst.get('/queries/card-accounts/csv?card=card-console').expect(200);
    expect(csv.text.trim().split('\n')).to.deep.equal(['account', 'c1', 'c2']);
    await del(analyst, '/cypher/saved/card-accounts').expect(403);
    await del(admin, '/cypher/saved/card-accounts').expect(200);
    await del(admin, '/cypher/saved/card-accounts').expect(404);
    await analyst.post('/queries/card-accounts/run', { card: 'card-console' }).expect(404);
  });
});
