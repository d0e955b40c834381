// The invariant the guard relies on: no relationship crosses scopes. Every Cypher statement that
// writes a relationship (found by parsing cypher/ with the guard's grammar) is run by real traffic
// in two tenants, each in both modes, with the same identifier values everywhere (hub splits,
// marks and reclustering included), and `doorman graph check` then finds none; it does find one
// made on purpose. Also the CLI: `doorman graph query` through the guard, and its refusals.
import { expect } from 'chai';
import { CypherLanguageService } from '@neo4j-cypher/language-support';
import request from 'supertest';
import { loadCypher, type CypherCatalog } from '../../src/graph/cypher-catalog.js';
import { checkGraphScopes } from '../../src/graph/check-graph-scopes.js';
import { reclusterGraph } from '../../src/lifecycle/recluster-graph.js';
import { erasePerson } from '../../src/lifecycle/erase-person.js';
import { bearer } from '../support/fixtures.js';
import { doorman } from '../support/cli-runner.js';
import { aCheckout, graphSettled, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { aTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { runAnalystCypher } from '../../src/graph-queries/run-analyst-cypher.js';
import type { AppError } from '../../src/errors.js';
import { ESCAPE_CORPUS, placeTraps, removeTraps, seedScopes } from './escape-corpus.js';

type Tree = { symbol?: unknown; ruleIndex?: number; children?: Tree[] | null };

// The statements with a CREATE or MERGE of a relationship, and the types they write.
function relationshipWriters(catalog: CypherCatalog): { name: string; types: string[] }[] {
  const service = new CypherLanguageService({ consoleCommandsEnabled: false }) as unknown as {
    parse(q: string): { statementsParsing: { ctx: Tree; parser: { ruleNames: string[] } }[] };
  };
  return catalog
    .names()
    .filter((name) => !name.startsWith('schema/'))
    .map((name) => {
      const [statement] = service.parse(catalog.get(name)).statementsParsing;
      const rules = statement!.parser.ruleNames;
      const types = new Set<string>();
      const text = (t: Tree): string => (t.symbol ? (t.symbol as { text: string }).text : (t.children ?? []).map(text).join(''));
      const visit = (t: Tree, inWrite: boolean, inRel: boolean): void => {
        if (t.symbol) return;
        const rule = rules[t.ruleIndex!]!;
        const w = inWrite || rule === 'createClause' || rule === 'mergeClause';
        const r = inRel || (w && rule === 'relationshipPattern');
        if (r && rule === 'labelExpression') types.add(text(t).replace(/^:/, ''));
        (t.children ?? []).forEach((c) => visit(c, w, r));
      };
      visit(statement!.ctx, false, false);
      return { name, types: [...types] };
    })
    .filter((w) => w.types.length > 0);
}

describe('no relationship crosses scopes', function () {
  this.timeout(120_000);
  const catalog = loadCypher();

  it('holds for every statement that writes a relationship, run in two tenants and both modes with the same values', async () => {
    const writers = relationshipWriters(catalog);
    // A new statement that writes relationships must join the traffic below before this passes.
    expect(writers.map((w) => w.name).sort(), 'the statements that write relationships').to.deep.equal([
      'graph/apply-forgets',
      'graph/apply-links',
      'graph/apply-marks',
      'graph/assign-clusters',
    ]);
    // The hub threshold splits the cluster the shared wifi made (assign-clusters moves members).
    const harnesses: Harness[] = [await verdictHarness({ GRAPH_HUB_THRESHOLD: '5' }), await verdictHarness({ GRAPH_HUB_THRESHOLD: '5' })];
    for (const h of harnesses) {
      for (const [mode, key] of [
        ['test', h.tenant.keys.sk_test],
        ['live', h.tenant.keys.sk_live],
      ] as const) {
        // Six accounts share a wifi value (a hub past five: the cluster splits); two share a phone.
        for (let i = 1; i <= 6; i++) {
          const body = aCheckout(
            { external_user_id: `acct-${i}`, identity: { wifi: 'cafe', ...(i <= 2 ? { phone: 'phone-same' } : {}) } },
            { card_fingerprint: i <= 2 ? 'card-same' : `card-${i}` },
          );
          await request(h.app).post('/v1/verdict').set(bearer(key)).send(body).expect(200);
          await graphSettled(h.deps, h.tenant.tenantId);
        }
        await request(h.app)
          .post('/v1/feedback')
          .set(bearer(key))
          .send({ subject: { kind: 'external_user_id', value: 'acct-1' }, outcome: 'confirmed_abuse' })
          .expect(200);
        await graphSettled(h.deps, h.tenant.tenantId);
        await reclusterGraph(h.deps, { tenantId: h.tenant.tenantId, mode });
      }
    }
    // Every type those statements write exists in all four scopes, and the split moved members
    // (assign-clusters): one cluster of six became five.
    for (const h of harnesses) {
      for (const mode of ['test', 'live']) {
        const { records } = await h.deps.graph.executeQuery(
          `MATCH (n {tenantId: $t, mode: $mode})-[r]->() RETURN collect(DISTINCT type(r)) AS types, COUNT { MATCH (c:Cluster {tenantId: $t, mode: $mode}) WHERE c.accounts > 0 } AS clusters`,
          { t: h.tenant.tenantId, mode },
        );
        expect(records[0]!.get('types')).to.include.members([...new Set(writers.flatMap((w) => w.types))]);
        expect(records[0]!.get('clusters'), `${mode}: clusters after the split`).to.equal(5);
      }
    }
    // An erasure takes the wifi's sixth account: it links again and joins a cluster (apply-forgets).
    for (const h of harnesses) {
      for (const mode of ['test', 'live'] as const) {
        await erasePerson(
          h.deps,
          { tenantId: h.tenant.tenantId, mode },
          { kind: 'external_user_id', value: 'acct-6' },
          { requestedBy: 'test' },
        );
        await graphSettled(h.deps, h.tenant.tenantId);
        const { records } = await h.deps.graph.executeQuery(
          `MATCH (i:Identifier {tenantId: $t, mode: $mode, kind: 'wifi'}) RETURN i.hub AS hub, COUNT { (i)-[:IN]->(:Cluster) } AS clusters`,
          { t: h.tenant.tenantId, mode },
        );
        expect(records[0]!.toObject(), `${mode}: the wifi after the erasure`).to.deep.equal({ hub: false, clusters: 1 });
      }
    }
    const check = await checkGraphScopes(harnesses[0]!.deps);
    expect(check.crossScopeRelationships, JSON.stringify(check.byType)).to.equal(0);
    // The same values made four separate clusters per tenant, never one.
    const { records } = await harnesses[0]!.deps.graph.executeQuery(
      `MATCH (i:Identifier {kind: 'card', value: 'card-same'}) WHERE i.tenantId IN $t RETURN count(i) AS n`,
      { t: harnesses.map((h) => h.tenant.tenantId) },
    );
    expect(records[0]!.get('n')).to.equal(4);
  });

  it('`doorman graph check` counts a crossing made on purpose, and exits non-zero', async () => {
    const h = await verdictHarness();
    const mark = `probe-${Date.now()}`;
    await h.deps.graph.executeQuery(
      `CREATE (:ScopeProbe {tenantId: 'a', mode: 'test', mark: $mark})-[:PROBE]->(:ScopeProbe {tenantId: 'b', mode: 'test', mark: $mark})`,
      { mark },
    );
    try {
      const bad = await doorman(['graph', 'check', '--json']);
      expect(bad.code).to.not.equal(0);
      expect(JSON.parse(bad.stdout)).to.deep.include({ ok: false, by_type: { PROBE: 1 } });
    } finally {
      await h.deps.graph.executeQuery('MATCH (n:ScopeProbe {mark: $mark}) DETACH DELETE n', { mark });
    }
    const good = await doorman(['graph', 'check', '--json']);
    expect(good.code, good.stderr).to.equal(0);
    expect(JSON.parse(good.stdout)).to.deep.include({
      ok: true,
      cross_scope_relationships: 0,
      unscoped_nodes: 0,
      transaction_memory_max: '512.00MiB',
    });
  });

  it('`doorman graph query` runs through the guard: rows as lists, parameters typed, refusals in one line', async () => {
    const h = await verdictHarness();
    await h.verdict(aCheckout({ external_user_id: 'cli-1' }, { card_fingerprint: 'card-cli' }));
    await h.verdict(aCheckout({ external_user_id: 'cli-2' }, { card_fingerprint: 'card-cli' }));
    const scope = ['--tenant', h.tenant.tenantId, '--mode', 'test'];
    const ok = await doorman([
      'graph',
      'query',
      ...scope,
      '--param',
      'card=card-cli',
      '--param',
      'n:=5',
      '--json',
      'MATCH (a:Account)-[:LINKED]->(:Identifier {kind: "card", value: $card}) RETURN a.externalId AS account ORDER BY account LIMIT $n',
    ]);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(JSON.parse(ok.stdout)).to.deep.equal({ columns: ['account'], rows: [['cli-1'], ['cli-2']], truncated: false });
    for (const [args, says] of [
      [['MATCH (n) DETACH DELETE n'], /^doorman: Refused: DELETE \(analysts read only\) \(line 1, column 11\)\.$/],
      [['--param', 'tenantId=other', 'MATCH (n) RETURN n'], /^doorman: Refused: the parameter \$tenantId/],
      [['MATCH (n) RETURN $x'], /\$x is missing/],
    ] as const) {
      const r = await doorman(['graph', 'query', ...scope, '--json', ...args]);
      expect(r.code).to.not.equal(0);
      expect(r.stdout).to.equal('');
      expect(r.stderr.trim().split('\n')).to.have.length(1);
      expect(r.stderr.trim()).to.match(says);
    }
    const { rows } = await h.deps.db.query<{ analyst_email: string; detail: { text: string } }>(
      `SELECT analyst_email, detail FROM console_audit WHERE tenant_id = $1 AND action = 'cypher.run' ORDER BY at`,
      [h.tenant.tenantId],
    );
    expect(rows.map((r) => r.analyst_email)).to.deep.equal(Array(4).fill('operator (doorman CLI)'));
    expect(rows[1]!.detail.text).to.equal('MATCH (n) DETACH DELETE n');
  });

  // A node without a tenantId (or without a mode) makes `n.tenantId = $tenantId` null rather than
  // false, so Neo4j goes on to evaluate the analyst's condition on it, and an error (or the time
  // taken) tells the analyst about it: an unscoped lane fence's epoch would come out in 20
  // queries. So every node has a scope (the fences the writer's own), `doorman graph check`
  // counts any that has none, and the guard keeps the analyst's conditions behind the scope test.
  // In this file, not the corpus's: while the traps stand, `graph check` must say so, and the
  // test above needs it clean.
  it('keeps a node without a scope out of reach: every probe of the corpus sees the same with and without one, and `doorman graph check` names it', async function () {
    this.timeout(240_000);
    // Error probes with a long limit (a busy machine must not make one time out in one run only),
    // timing probes with a short one (it turns time into an answer).
    const deps = testDeps({ GRAPH_QUERY_TIMEOUT_MS: '30000' });
    const quick = testDeps({ GRAPH_QUERY_TIMEOUT_MS: '1500' });
    const [a, b] = [await aTenant(deps), await aTenant(deps)];
    const seeded = await seedScopes(deps, a!.tenantId, b!.tenantId);
    const actor = { tenantId: a!.tenantId, mode: 'test' as const, analystId: null, analystEmail: 'probe@test' };
    const probes = ESCAPE_CORPUS.filter((x) => x.expect === 'blind');
    expect(probes.length).to.be.at.least(40);
    const seen = (text: string, params: Record<string, unknown>, timing = false) =>
      runAnalystCypher(timing ? quick : deps, actor, { text, params }).then(
        (r) => ({ rows: r.rows }),
        (err: unknown) => ({ error: (err as AppError).code, message: (err as Error).message }),
      );
    const paramsOf = (p: (typeof probes)[number]) => (typeof p.params === 'function' ? p.params(seeded) : (p.params ?? {}));
    const without = [];
    for (const p of probes) without.push(await seen(p.text, paramsOf(p), p.kind === 'timing'));
    const mark = `unscoped-${Date.now()}`;
    await placeTraps(deps, b!.tenantId, a!.tenantId, mark, { unscoped: true });
    try {
      const changed: string[] = [];
      for (const [i, p] of probes.entries()) {
        const withTraps = await seen(p.text, paramsOf(p), p.kind === 'timing');
        if (JSON.stringify(withTraps) !== JSON.stringify(without[i]))
          changed.push(`${p.text}\n  without: ${JSON.stringify(without[i])}\n  with:    ${JSON.stringify(withTraps)}`);
      }
      expect(changed, `outcomes that depend on a node without a scope:\n${changed.join('\n')}`).to.deep.equal([]);
      const check = await doorman(['graph', 'check', '--json']);
      expect(check.code).to.not.equal(0);
      const reported = JSON.parse(check.stdout) as { ok: boolean; unscoped_nodes: number; unscoped_by_labels: Record<string, number> };
      expect(reported.ok).to.equal(false);
      expect(reported.unscoped_nodes).to.be.at.least(4);
      expect(reported.unscoped_by_labels['Account:Trap']).to.be.at.least(2);
    } finally {
      await removeTraps(deps, mark);
    }
    const clean = await doorman(['graph', 'check', '--json']);
    expect(JSON.parse(clean.stdout)).to.deep.include({ unscoped_nodes: 0 });
  });
});
