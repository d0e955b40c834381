// Analysts' own Cypher cannot leave its scope. A graph holds two tenants, each in both
// modes, with the same identifier values everywhere and a marker on every node naming its scope
// (A-test is the analyst's). Every attempt of the corpus is either refused by the guard (or by
// Neo4j: timeout, read-only) or answers from A-test alone. Layers are also tested on their own:
// the guard's text, the READ transaction without the guard, the caps.
import { expect } from 'chai';
import type { Deps } from '../../src/deps.js';
import { AppError } from '../../src/errors.js';
import { guardCypher } from '../../src/graph-queries/cypher-guard.js';
import { readGraphQuery } from '../../src/graph-queries/read-graph-query.js';
import { runAnalystCypher } from '../../src/graph-queries/run-analyst-cypher.js';
import type { Actor } from '../../src/audit/audit-store.js';
import { aTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { ESCAPE_CORPUS, placeTraps, removeTraps, SCOPES, seedScopes, type Seeded } from './escape-corpus.js';

describe("analysts' own Cypher: the escape corpus", function () {
  this.timeout(120_000);
  let deps: Deps;
  let long: Deps;
  let seeded: Seeded;
  let actor: Actor;

  before(async () => {
    // A short timeout, so the runaway path of the corpus ends quickly.
    deps = testDeps({ GRAPH_QUERY_TIMEOUT_MS: '1500' });
    long = testDeps({ GRAPH_QUERY_TIMEOUT_MS: '30000' });
    const [a, b] = [await aTenant(deps), await aTenant(deps)];
    seeded = await seedScopes(deps, a!.tenantId, b!.tenantId);
    actor = { tenantId: a!.tenantId, mode: 'test', analystId: null, analystEmail: 'corpus@test' };
  });

  it('holds at least 150 attempts, every kind the issues name among them', () => {
    expect(ESCAPE_CORPUS.length).to.be.at.least(150);
    const kinds = new Set(ESCAPE_CORPUS.map((x) => x.kind));
    for (const kind of [
      'unanchored',
      'id lookup',
      'label only',
      'pattern comprehension',
      'subquery expression',
      'CALL subquery',
      'quantified path',
      'shortestPath',
      'UNION',
      'WITH *',
      'scope parameter',
      'dynamic label or property',
      'escape',
      'comment',
      'several statements',
      'procedure',
      'LOAD CSV, USE, SHOW',
      'write',
      'EXPLAIN, PROFILE, options',
      'hint',
      'runaway',
      'error: division by zero',
      'error: toInteger and friends',
      'error: regex',
      'error: list index',
      'error: keys, labels, id',
      'error: where it stands',
      'error: relationship scan',
      'timing',
      'bound',
      'pattern value',
    ]) {
      expect(kinds, kind).to.include(kind);
    }
  });

  for (const attempt of ESCAPE_CORPUS) {
    it(`${attempt.kind}: ${attempt.text.replace(/\s+/g, ' ').slice(0, 90)}`, async () => {
      const params = typeof attempt.params === 'function' ? attempt.params(seeded) : (attempt.params ?? {});
      // Only what asserts a time runs with the short limit: a runaway query that must time out, and a
      // timing probe, which turns time into an answer. Everything else asserts an answer, so it runs
      // with a long limit: a busy machine, or a database holding many scopes' nodes (a label-less
      // scan reads them all), must not turn an answer into a timeout.
      const short = attempt.expect === 'timeout' || attempt.kind === 'timing';
      const on = short ? deps : long;
      const run = () =>
        runAnalystCypher(on, actor, { text: attempt.text, params }).then(
          (r) => ({ result: r }),
          (err: unknown) => ({ err }),
        );
      if (attempt.expect === 'blind') {
        // What the analyst sees without the traps, and with them: the same rows, or the same error.
        const seen = (o: Awaited<ReturnType<typeof run>>) =>
          'result' in o ? { rows: o.result.rows } : { error: (o.err as AppError).code, message: (o.err as Error).message };
        const without = seen(await run());
        const mark = `trap-${Date.now()}-${Math.random()}`;
        await placeTraps(deps, seeded.otherTenant, actor.tenantId, mark);
        try {
          expect(seen(await run()), 'the outcome changed when nodes outside the scope were there').to.deep.equal(without);
        } finally {
          await removeTraps(deps, mark);
        }
        return;
      }
      const outcome = await run();
      if (attempt.expect !== 'scoped') {
        expect(outcome, 'refused').to.have.property('err');
        const err = (outcome as { err: unknown }).err;
        expect(err, String(err)).to.be.instanceOf(AppError);
        const e = err as AppError;
        if (attempt.expect === 'refused') expect(e.details?.refusal, e.message).to.be.an('object');
        if (attempt.expect === 'timeout') expect(e.message).to.match(/ran past its 1500 ms limit/);
        return;
      }
      expect(outcome, `answered: ${String((outcome as { err?: unknown }).err)}`).to.have.property('result');
      const { rows } = (outcome as { result: { rows: Record<string, unknown>[] } }).result;
      assertOnlyOwnScope(rows);
      attempt.check?.(rows, seeded);
    });
  }

  it('answers the legitimate questions with the right rows', async () => {
    const run = async (text: string, params: Record<string, unknown> = {}) => (await runAnalystCypher(deps, actor, { text, params })).rows;
    // a cluster's accounts
    expect(
      (
        await run(
          `MATCH (:Account {externalId: $account})-[:IN]->(c:Cluster) MATCH (b:Account)-[:IN]->(c) RETURN b.externalId AS account ORDER BY account`,
          { account: 'acct-1' },
        )
      ).map((r) => r.account),
    ).to.deep.equal(['acct-1', 'acct-2', 'acct-3', 'acct-4']);
    // the identifiers two accounts share
    expect(
      await run(
        `MATCH (:Account {externalId: $a})-[:LINKED]->(i:Identifier)<-[:LINKED]-(:Account {externalId: $b}) RETURN i.kind AS kind, i.value AS value ORDER BY kind`,
        { a: 'acct-1', b: 'acct-3' },
      ),
    ).to.deep.equal([
      { kind: 'card', value: 'card-same' },
      { kind: 'email', value: 'same@example.com' },
    ]);
    // the shortest path between two accounts
    const [path] = await run(
      `MATCH p = shortestPath((:Account {externalId: $a})-[:LINKED*..6]-(:Account {externalId: $b})) RETURN [n IN nodes(p) | coalesce(n.externalId, n.kind)] AS via`,
      { a: 'acct-1', b: 'acct-4' },
    );
    expect(path!.via).to.have.length(3);
    expect((path!.via as string[])[0]).to.equal('acct-1');
    // the largest clusters
    expect(await run(`MATCH (c:Cluster) RETURN c.id AS id, c.accounts AS accounts ORDER BY accounts DESC LIMIT 5`)).to.deep.equal([
      { id: 'cluster-1', accounts: 4 },
    ]);
  });

  it('refuses with the clause or function and its position', async () => {
    const refusal = (text: string) =>
      guardCypher(text).then(
        () => undefined,
        (err: unknown) => (err as AppError).details?.refusal,
      );
    expect(await refusal('MATCH (n)\nDETACH DELETE n')).to.deep.equal({ reason: 'DELETE (analysts read only)', line: 2, column: 1 });
    expect(await refusal('MATCH (n) RETURN apoc.text.join([], "")')).to.deep.equal({
      reason: 'the function apoc.text.join',
      line: 1,
      column: 18,
    });
    expect(await refusal('CALL db.labels()')).to.deep.equal({ reason: 'the procedure db.labels (procedure calls)', line: 1, column: 1 });
  });

  it('names the bound a statement or its parameters pass, and checks a range() parameter when the query runs, not when it is saved', async () => {
    const reason = (text: string, params: Record<string, unknown> = {}) =>
      guardCypher(text, params).then(
        () => undefined,
        (err: unknown) => ((err as AppError).details?.refusal as { reason?: string } | undefined)?.reason,
      );
    expect(await reason(`RETURN ${'NOT '.repeat(120)}true AS x`)).to.match(/nested \d+ levels deep \(the bound is 100\)/);
    expect(await reason(`RETURN ${'EXISTS { MATCH (n) WHERE '.repeat(5)}true${' }'.repeat(5)} AS x`)).to.equal(
      'subqueries nested 5 deep (the bound is 4)',
    );
    expect(await reason(`MATCH (a)${'--()'.repeat(9)} RETURN a`)).to.equal('9 relationship patterns (the bound is 8 in one statement)');
    expect(await reason('RETURN $p AS x', { p: JSON.parse(`${'['.repeat(20)}1${']'.repeat(20)}`) as unknown })).to.equal(
      'the parameter $p nested more than 16 levels deep (the bound is 16)',
    );
    // Saved without its parameter: accepted; run with one too long: refused.
    expect(await reason('RETURN size(range(1, $n)) AS x')).to.equal(undefined);
    expect(await reason('RETURN size(range(1, $n)) AS x', { n: 10 })).to.equal(undefined);
    expect(await reason('RETURN size(range(1, $n)) AS x', { n: 20_000_000 })).to.match(/range\(\) lists of 20000000 elements/);
  });

  it('scopes every node pattern in the text it runs, and drops comments', async () => {
    const g = await guardCypher(
      'MATCH (a:Account)-[:LINKED]->(i) /* x */ WHERE EXISTS { (i)<--() } RETURN [(a)--(z {kind: "card"}) | z] // y',
    );
    expect(g.scopedNodePatterns).to.equal(6);
    expect(g.text.match(/\{tenantId: \$tenantId, mode: \$mode/g)).to.have.length(6);
    expect(g.text).to.not.match(/\/\*|\/\//);
    expect(g.text).to.include('{tenantId: $tenantId, mode: $mode, kind: "card"}');
  });

  it('runs in a READ transaction: Neo4j itself refuses a write that passed no guard', async () => {
    const marker = `write-${Date.now()}`;
    const err = await readGraphQuery(
      deps.analystGraph,
      actor.tenantId,
      'CREATE (:GuardProbe {marker: $marker})',
      { marker },
      { timeoutMs: 5000, rowCap: 10, maxBytes: 1e6 },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(AppError);
    expect((err as AppError).code).to.equal('forbidden');
    const { records } = await deps.graph.executeQuery('MATCH (n:GuardProbe {marker: $marker}) RETURN count(n) AS n', { marker });
    expect(records[0]!.get('n')).to.equal(0);
  });

  it('cuts rows at the row cap and the byte cap (truncated), and reads no further', async () => {
    const capped = await readGraphQuery(
      deps.analystGraph,
      actor.tenantId,
      'UNWIND range(1, 1000) AS x RETURN x',
      {},
      { timeoutMs: 5000, rowCap: 10, maxBytes: 1e6 },
    );
    expect(capped.rows).to.have.length(10);
    expect(capped.truncated).to.equal(true);
    const bytes = await readGraphQuery(
      deps.analystGraph,
      actor.tenantId,
      "UNWIND range(1, 1000) AS x RETURN x, 'padding padding padding' AS p",
      {},
      { timeoutMs: 5000, rowCap: 1000, maxBytes: 2000 },
    );
    expect(bytes.rows.length).to.be.within(20, 60);
    expect(bytes.truncated).to.equal(true);
    const whole = await readGraphQuery(
      deps.analystGraph,
      actor.tenantId,
      'UNWIND range(1, 10) AS x RETURN x',
      {},
      { timeoutMs: 5000, rowCap: 10, maxBytes: 1e6 },
    );
    expect(whole.truncated).to.equal(false);
  });

  it("answers Neo4j's memory cap (db.memory.transaction.max, set by scripts/neo4j.sh) with a 4xx in words", async () => {
    const err = await readGraphQuery(
      deps.analystGraph,
      actor.tenantId,
      'UNWIND range(1, 200000000) AS x WITH collect(x) AS xs RETURN size(xs) AS n',
      {},
      { timeoutMs: 60_000, rowCap: 10, maxBytes: 1e6 },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(AppError);
    expect((err as AppError).message).to.match(/more memory than a query may/);
  });

  it('audits every run: the text, the parameters, the time, the rows, or the refusal', async () => {
    const who: Actor = { ...actor, analystEmail: `auditor-${Date.now()}@test` };
    await runAnalystCypher(deps, who, { text: 'MATCH (a:Account) RETURN count(a) AS c', params: {} });
    await runAnalystCypher(deps, who, { text: 'CALL db.labels()', params: {} }).catch(() => undefined);
    const { rows } = await deps.db.query<{ action: string; detail: Record<string, unknown> }>(
      'SELECT action, detail FROM console_audit WHERE tenant_id = $1 AND analyst_email = $2 ORDER BY at',
      [who.tenantId, who.analystEmail],
    );
    expect(rows.map((r) => r.action)).to.deep.equal(['cypher.run', 'cypher.run']);
    expect(rows[0]!.detail).to.include({ text: 'MATCH (a:Account) RETURN count(a) AS c', rows: 1, truncated: false });
    expect(rows[0]!.detail.ms).to.be.a('number');
    expect(rows[1]!.detail.refused).to.deep.include({ reason: 'the procedure db.labels (procedure calls)' });
  });

  // Every node in the answer is A-test's; every marker anywhere in it names A-test.
  function assertOnlyOwnScope(rows: unknown): void {
    const visit = (v: unknown): void => {
      if (typeof v === 'string') {
        if (SCOPES.includes(v)) expect(v, 'a marker of another scope').to.equal('A-test');
        return;
      }
      if (!v || typeof v !== 'object') return;
      const node = (v as { $node?: { properties: Record<string, unknown> } }).$node;
      if (node) expect(node.properties.marker, 'a node of another scope').to.equal('A-test');
      Object.values(v).forEach(visit);
    };
    visit(rows);
  }
});
