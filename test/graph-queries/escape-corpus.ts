// The escape corpus of analysts' own Cypher and the graph it runs against: two tenants, each in
// both modes, the same identifier values in all four scopes, a `marker` on every node naming its
// scope. The analyst is A in test; the scopes differ in size, so a count that leaked would show.
import { expect } from 'chai';
import type { Deps } from '../../src/deps.js';

export const SCOPES = ['A-test', 'A-live', 'B-test', 'B-live'];

export interface Seeded {
  nodes: number;
  relationships: number;
  accounts: number;
  foreignElementIds: string[];
  foreignIds: number[];
  otherTenant: string;
}

export async function seedScopes(deps: Deps, a: string, b: string): Promise<Seeded> {
  const scopes = [
    { tenantId: a, mode: 'test', marker: 'A-test', accounts: 4 },
    { tenantId: a, mode: 'live', marker: 'A-live', accounts: 5 },
    { tenantId: b, mode: 'test', marker: 'B-test', accounts: 6 },
    { tenantId: b, mode: 'live', marker: 'B-live', accounts: 7 },
  ];
  await deps.graph.executeQuery(
    `UNWIND $scopes AS s
     CREATE (c:Cluster {tenantId: s.tenantId, mode: s.mode, marker: s.marker, id: 'cluster-1', accounts: s.accounts, size: s.accounts + 3})
     CREATE (card:Identifier:Card {tenantId: s.tenantId, mode: s.mode, marker: s.marker, kind: 'card', value: 'card-same', hub: false})
     CREATE (email:Identifier:Email {tenantId: s.tenantId, mode: s.mode, marker: s.marker, kind: 'email', value: 'same@example.com', hub: false})
     CREATE (phone:Identifier {tenantId: s.tenantId, mode: s.mode, marker: s.marker, kind: 'phone', value: 'phone-same', hub: false})
     CREATE (card)-[:IN]->(c), (email)-[:IN]->(c), (phone)-[:IN]->(c)
     WITH s, c, card, email, phone
     UNWIND range(1, s.accounts) AS i
     CREATE (acct:Account {tenantId: s.tenantId, mode: s.mode, marker: s.marker, externalId: 'acct-' + i, history: true})
     CREATE (ev:Event {tenantId: s.tenantId, mode: s.mode, marker: s.marker, id: 'ev-' + i, type: 'signup', at: 1700000000000 + i})
     CREATE (acct)-[:IN]->(c), (acct)-[:LINKED {firstSeenAt: 1}]->(card), (acct)-[:LINKED {firstSeenAt: 1}]->(email), (ev)-[:BY]->(acct), (ev)-[:USED]->(card)
     FOREACH (_ IN CASE WHEN i <= 2 THEN [1] ELSE [] END | CREATE (acct)-[:LINKED {firstSeenAt: 1}]->(phone))
     FOREACH (_ IN CASE WHEN i = 1 THEN [1] ELSE [] END |
       CREATE (:Feedback {tenantId: s.tenantId, mode: s.mode, marker: s.marker, key: 'fb-1', outcome: 'confirmed_abuse', at: 1})-[:ON]->(acct))`,
    { scopes },
  );
  const own = await deps.graph.executeQuery(
    `MATCH (n {tenantId: $a, mode: 'test'}) WITH count(n) AS nodes
     MATCH ({tenantId: $a, mode: 'test'})-[r]->() RETURN nodes, count(r) AS relationships`,
    { a },
  );
  const foreign = await deps.graph.executeQuery(
    `MATCH (n) WHERE n.tenantId IN [$a, $b] AND n.marker <> 'A-test' RETURN collect(elementId(n)) AS e, collect(id(n)) AS i`,
    { a, b },
  );
  return {
    nodes: own.records[0]!.get('nodes') as number,
    relationships: own.records[0]!.get('relationships') as number,
    accounts: 4,
    foreignElementIds: foreign.records[0]!.get('e') as string[],
    foreignIds: foreign.records[0]!.get('i') as number[],
    otherTenant: b,
  };
}

// Nodes and relationships outside A-test that a probe's condition fails on, or is slow on: in
// B's scopes, in A's live mode, and in the writer's own scope (as the lane fences are). Each
// carries the values the probes trip over (lane 3 divides by zero, a string where a number goes,
// an unclosed regex, a list where a scalar goes, `slow`), and a label of its own.
// `big` makes a nested comprehension over it slow (25,000,000 steps), with no range() to bound.
export const TRAP = { lane: 3, s: 'abc', pattern: '[', list: [1], slow: true, big: Array.from({ length: 5000 }, (_, i) => i) };

export async function placeTraps(deps: Deps, b: string, a: string, mark: string, options: { unscoped?: boolean } = {}): Promise<void> {
  // Unscoped: with no tenantId and no mode, and with A's tenantId but no mode. `doorman graph
  // check` counts these; the others are in proper scopes.
  const scopes = options.unscoped
    ? [
        { tenantId: null, mode: null },
        { tenantId: a, mode: null },
      ]
    : [
        { tenantId: b, mode: 'test' },
        { tenantId: b, mode: 'live' },
        { tenantId: a, mode: 'live' },
        { tenantId: '', mode: 'internal' },
      ];
  await deps.graph.executeQuery(
    `UNWIND $scopes AS s
     CREATE (t:Account:Trap {tenantId: s.tenantId, mode: s.mode, mark: $mark, externalId: 'acct-9', lane: $t.lane, s: $t.s, pattern: $t.pattern, list: $t.list, slow: $t.slow, big: $t.big})
     CREATE (u:Identifier:Trap {tenantId: s.tenantId, mode: s.mode, mark: $mark, kind: 'card', value: 'card-trap', lane: $t.lane, s: $t.s, pattern: $t.pattern, list: $t.list, slow: $t.slow, big: $t.big})
     CREATE (t)-[:LINKED {firstSeenAt: 1, lane: $t.lane, s: $t.s, list: $t.list, slow: $t.slow}]->(u)
     CREATE (t)-[:TRAPPED {lane: $t.lane, s: $t.s, slow: $t.slow, big: $t.big}]->(u)`,
    { scopes, mark, t: TRAP },
  );
}

export async function removeTraps(deps: Deps, mark: string): Promise<void> {
  await deps.graph.executeQuery('MATCH (t:Trap {mark: $mark}) DETACH DELETE t', { mark });
}

export interface Attempt {
  kind: string;
  text: string;
  params?: Record<string, unknown> | ((s: Seeded) => Record<string, unknown>);
  // refused: by the guard; timeout: by Neo4j at the run's timeout; scoped: answered from A-test
  // only; blind: the same outcome (rows, or error) with and without the traps outside the scope.
  expect: 'refused' | 'timeout' | 'scoped' | 'blind';
  check?: (rows: Record<string, unknown>[], s: Seeded) => void;
}

const refused = (kind: string, text: string, params?: Attempt['params']): Attempt => ({ kind, text, params, expect: 'refused' });
const blind = (kind: string, text: string, params?: Attempt['params']): Attempt => ({ kind, text, params, expect: 'blind' });
const scoped = (kind: string, text: string, check?: Attempt['check'], params?: Attempt['params']): Attempt => ({
  kind,
  text,
  params,
  expect: 'scoped',
  check,
});

// Every value of column m is A-test's marker (a leak of a node without one would show as null).
const onlyOwn = (rows: Record<string, unknown>[]) => {
  for (const r of rows) expect([r.m].flat(), JSON.stringify(r)).to.satisfy((ms: unknown[]) => ms.every((m) => m === 'A-test'));
};
const some = (rows: Record<string, unknown>[]) => {
  expect(rows.length).to.be.greaterThan(0);
  onlyOwn(rows);
};
const none = (rows: Record<string, unknown>[]) => expect(rows).to.deep.equal([]);
const count = (what: 'nodes' | 'relationships' | 'accounts') => (rows: Record<string, unknown>[], s: Seeded) =>
  expect(rows).to.deep.equal([{ c: s[what] }]);
const never = (rows: Record<string, unknown>[]) => expect(rows).to.deep.equal([{ leak: false }]);

export const ESCAPE_CORPUS: Attempt[] = [
  scoped('unanchored', 'MATCH (n) RETURN n.marker AS m', some),
  scoped('unanchored', 'MATCH (n) RETURN count(n) AS c', count('nodes')),
  scoped('unanchored', 'MATCH ()-[r]->() RETURN count(r) AS c', count('relationships')),
  scoped('unanchored', 'MATCH (n) RETURN n', (rows) => expect(rows.length).to.be.greaterThan(0)),
  scoped('unanchored', 'MATCH (n) WHERE n.marker STARTS WITH "B" OR n.tenantId <> "x" RETURN DISTINCT n.marker AS m', some),
  scoped('unanchored', 'MATCH (n) WHERE n.mode = "live" RETURN n.marker AS m', none),
  scoped('unanchored', 'MATCH (n) WHERE n.tenantId = $other RETURN n.marker AS m', none, (s) => ({ other: s.otherTenant })),
  scoped('unanchored', 'MATCH (n) RETURN properties(n) AS p, keys(n) AS k'),
  scoped('unanchored', 'MATCH (a:Account)-[r]->(b) RETURN DISTINCT startNode(r).marker AS m, endNode(r).marker AS m2'),
  scoped('unanchored', 'MATCH p = (a)-->(b) RETURN [x IN nodes(p) | x.marker] AS m', some),
  scoped('unanchored', 'MATCH (n:LaneFence) RETURN n', none),
  scoped('id lookup', 'MATCH (n) WHERE elementId(n) IN $ids RETURN n.marker AS m', none, (s) => ({ ids: s.foreignElementIds })),
  scoped('id lookup', 'MATCH (n) WHERE id(n) IN $ids RETURN n.marker AS m', none, (s) => ({ ids: s.foreignIds })),
  scoped('id lookup', 'UNWIND $ids AS x MATCH (n) WHERE elementId(n) = x RETURN n', none, (s) => ({ ids: s.foreignElementIds })),
  scoped('id lookup', 'MATCH (n) WHERE id(n) = $id RETURN n', none, (s) => ({ id: s.foreignIds[0] })),
  scoped(
    'id lookup',
    'MATCH (a:Account) WITH collect(id(a)) AS own MATCH (n) WHERE id(n) IN own + $ids RETURN n.marker AS m',
    some,
    (s) => ({ ids: s.foreignIds }),
  ),
  scoped('label only', 'MATCH (a:Account) RETURN count(a) AS c', count('accounts')),
  scoped('label only', 'MATCH (n:Account|Identifier|Cluster|Event|Feedback) RETURN n.marker AS m', some),
  scoped('label only', 'MATCH (n:!Account) RETURN n.marker AS m', some),
  scoped('label only', 'MATCH (n:%) RETURN n.marker AS m', some),
  scoped('label only', 'MATCH (n) WHERE n:Account RETURN n.marker AS m', some),
  scoped('pattern comprehension', 'MATCH (a:Account) RETURN [(a)-[:LINKED]->(i) | i.marker] AS m', some),
  scoped('pattern comprehension', 'RETURN [(x)-->(y) | y.marker] AS m', some),
  scoped('pattern comprehension', 'RETURN [p = (x:Account)-[*1..2]-(y) | y.marker][..50] AS m', some),
  scoped('pattern comprehension', 'RETURN size([(x {marker: "B-test"})-->() | 1]) AS c', (rows) => expect(rows).to.deep.equal([{ c: 0 }])),
  scoped('subquery expression', 'RETURN COUNT { (n) } AS c', count('nodes')),
  scoped('subquery expression', 'RETURN COLLECT { MATCH (n:Account) RETURN n.marker } AS m', some),
  scoped('subquery expression', 'RETURN EXISTS { MATCH (n {marker: "B-live"}) } AS leak', never),
  scoped('subquery expression', 'RETURN EXISTS { (n)-->(m) WHERE m.marker = "A-live" } AS leak', never),
  scoped('subquery expression', 'RETURN COUNT { MATCH (n) WHERE n.marker STARTS WITH "B" RETURN n } AS c', (rows) =>
    expect(rows).to.deep.equal([{ c: 0 }]),
  ),
  scoped('CALL subquery', 'CALL { MATCH (n) RETURN n } RETURN n.marker AS m', some),
  scoped('CALL subquery', 'CALL () { MATCH (n:Account) RETURN n.marker AS m } RETURN m', some),
  scoped('CALL subquery', 'CALL () { MATCH (n) RETURN count(n) AS c } RETURN c', count('nodes')),
  scoped('CALL subquery', 'MATCH (a:Account) CALL (a) { MATCH (a)-[*1..3]-(x) RETURN x LIMIT 50 } RETURN DISTINCT x.marker AS m', some),
  scoped('quantified path', 'MATCH (a:Account {externalId: "acct-1"}) ((x)-[]-(y)){1,4} (z) RETURN DISTINCT z.marker AS m', some),
  scoped('quantified path', 'MATCH (a:Account {externalId: "acct-1"})-[]-{1,3}(z) RETURN DISTINCT z.marker AS m', some),
  scoped('quantified path', 'MATCH p = ANY SHORTEST (a:Account {externalId: "acct-1"})-[]-+(b {marker: "B-test"}) RETURN p', none),
  scoped('shortestPath', 'MATCH p = shortestPath((a:Account {externalId: "acct-1"})-[*]-(b {marker: "B-test"})) RETURN p', none),
  scoped(
    'shortestPath',
    'MATCH (a:Account {externalId: "acct-1"}) MATCH (b:Identifier|Account|Cluster) WHERE b <> a MATCH p = shortestPath((a)-[*..10]-(b)) RETURN DISTINCT b.marker AS m',
    some,
  ),
  scoped(
    'shortestPath',
    'MATCH p = allShortestPaths((a:Account)-[*..4]-(b:Account)) WHERE a <> b RETURN DISTINCT [n IN nodes(p) | n.marker] AS m',
    some,
  ),
  scoped('shortestPath', 'MATCH (a:Account {externalId: "acct-1"})-[*1..6]-(x) RETURN DISTINCT x.marker AS m', some),
  scoped('UNION', 'MATCH (n:Account) RETURN n.marker AS m UNION MATCH (n:Identifier) RETURN n.marker AS m', some),
  scoped('UNION', 'RETURN "A-test" AS m UNION ALL MATCH (n) RETURN n.marker AS m', some),
  scoped('WITH *', 'MATCH (n) WITH * RETURN n.marker AS m', some),
  scoped('WITH *', 'MATCH (a:Account) WITH * MATCH (b) WHERE b <> a RETURN DISTINCT b.marker AS m', some),
  refused('scope parameter', 'MATCH (n) RETURN n.marker AS m', (s) => ({ tenantId: s.otherTenant })),
  refused('scope parameter', 'MATCH (n) RETURN n.marker AS m', { mode: 'live' }),
  refused('scope parameter', 'MATCH (n {tenantId: $t}) RETURN n', (s) => ({ t: s.otherTenant })),
  refused('scope parameter', 'MATCH (n {`mode`: "live"}) RETURN n'),
  refused('scope parameter', 'MATCH (n $props) RETURN n', { props: { marker: 'B-test' } }),
  scoped('scope parameter', 'MATCH (n) WHERE n.tenantId = $tenantId AND n.mode = $mode RETURN n.marker AS m', some),
  scoped('dynamic label or property', 'MATCH (n:$($label)) RETURN n.marker AS m', some, { label: 'Account' }),
  scoped('dynamic label or property', 'MATCH (n) WHERE n[$key] = $value RETURN n.marker AS m', none, { key: 'marker', value: 'B-test' }),
  scoped('dynamic label or property', 'MATCH (n) RETURN n[$key] AS m', some, { key: 'marker' }),
  refused('escape', "RETURN '\\u0027 MATCH (n) RETURN n //' AS x"),
  refused('escape', 'MATCH (n) RETURN n.marker AS \\u0061'),
  refused('escape', 'MATCH (n:`Acc\\u006Funt`) RETURN n'),
  refused('escape', 'CALL `db`.`labels`()'),
  refused('escape', 'RETURN `apoc`.`version`() AS v'),
  scoped('escape', 'MATCH (`n`:`Account`) RETURN `n`.marker AS m', some),
  scoped('escape', 'MATCH (n:`Account`) WHERE n.`tenantId` <> "" RETURN n.`marker` AS m', some),
  scoped('comment', 'MATCH (n) RETURN n.marker AS m /* ; MATCH (x) DETACH DELETE x */', some),
  scoped('comment', '/* USE system */ MATCH (n) RETURN n.marker AS m // ; CALL db.labels()', some),
  refused('comment', 'MATCH (n) //\nSET n.marker = "x" RETURN n'),
  refused('comment', 'MATCH (n) /* a comment */ DETACH DELETE n'),
  refused('several statements', 'MATCH (n) RETURN n; MATCH (m) DETACH DELETE m'),
  refused('several statements', 'RETURN 1 AS x; RETURN 2 AS x'),
  refused('procedure', 'CALL db.labels()'),
  refused('procedure', 'CALL db.labels() YIELD label RETURN label'),
  refused('procedure', 'CALL dbms.components()'),
  refused('procedure', 'CALL dbms.listConfig()'),
  refused('procedure', "CALL apoc.help('x')"),
  refused('procedure', "CALL db.index.fulltext.queryNodes('x', 'y')"),
  refused('procedure', 'MATCH (n) CALL db.stats.retrieve("GRAPH COUNTS") YIELD data RETURN data'),
  refused('procedure', "RETURN db.nameFromElementId('x') AS x"),
  refused('procedure', 'RETURN apoc.coll.sum([1]) AS x'),
  refused('procedure', 'MATCH (n) RETURN gds.util.asNode(1) AS x'),
  refused('LOAD CSV, USE, SHOW', "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l"),
  refused('LOAD CSV, USE, SHOW', 'USE system SHOW USERS'),
  refused('LOAD CSV, USE, SHOW', 'USE neo4j MATCH (n) RETURN n'),
  refused('LOAD CSV, USE, SHOW', 'SHOW USERS'),
  refused('LOAD CSV, USE, SHOW', 'SHOW DATABASES'),
  refused('LOAD CSV, USE, SHOW', 'SHOW TRANSACTIONS'),
  refused('LOAD CSV, USE, SHOW', "TERMINATE TRANSACTIONS 'neo4j-transaction-1'"),
  refused('LOAD CSV, USE, SHOW', "CREATE USER mallory SET PASSWORD 'secret'"),
  refused('write', "CREATE (n:Account {externalId: 'x'})"),
  refused('write', "MERGE (n:Account {externalId: 'x'}) RETURN n"),
  refused('write', "MATCH (n) SET n.marker = 'x'"),
  refused('write', 'MATCH (n) REMOVE n.marker'),
  refused('write', 'MATCH (n) DELETE n'),
  refused('write', 'MATCH (n) DETACH DELETE n'),
  refused('write', 'FOREACH (x IN [1] | CREATE (:Account))'),
  refused('write', 'MATCH (a), (b) CREATE (a)-[:LINKED]->(b)'),
  refused('write', 'CALL { CREATE (:X) } IN TRANSACTIONS'),
  refused('write', 'MATCH (n) CALL (n) { SET n.x = 1 } IN TRANSACTIONS OF 10 ROWS RETURN 1'),
  refused('EXPLAIN, PROFILE, options', 'EXPLAIN MATCH (n) RETURN n'),
  refused('EXPLAIN, PROFILE, options', 'PROFILE MATCH (n) RETURN n'),
  refused('EXPLAIN, PROFILE, options', 'CYPHER runtime=slotted MATCH (n) RETURN n'),
  refused('EXPLAIN, PROFILE, options', 'CYPHER 5 MATCH (n) RETURN n'),
  refused('EXPLAIN, PROFILE, options', 'CYPHER replan=force MATCH (n) RETURN n'),
  refused('hint', 'MATCH (n:Account) USING SCAN n:Account RETURN n'),
  refused('hint', "MATCH (n:Account) USING INDEX n:Account(externalId) WHERE n.externalId = 'acct-1' RETURN n"),
  refused('unclassified', 'MATCH (n'),
  refused('unclassified', 'MATCH (n) RETURN n n'),
  refused('unclassified', 'MATCH (n) FINISH'),
  { kind: 'runaway', text: 'MATCH p = (a)-[*]-(b) RETURN count(p) AS c', expect: 'timeout' },
  // Error and timing probes: each condition fails, or is slow, only on a trap; the
  // analyst must see the same whether the traps are there or not.
  blind('error: division by zero', 'MATCH (n) WHERE 1/(coalesce(properties(n).lane, 99) - 3) = 7 RETURN count(n) AS c'),
  blind('error: division by zero', 'MATCH (n) WHERE 1/(coalesce(n.lane, 99) - 3) = 7 RETURN count(n) AS c'),
  blind(
    'error: division by zero',
    'MATCH (n:Account) WHERE n.externalId = "acct-9" AND 1/(coalesce(n.lane, 4) - 3) = 1 RETURN count(n) AS c',
  ),
  blind('error: division by zero', 'MATCH (n:Account {externalId: "acct-9"}) WHERE 1 % (coalesce(n.lane, 4) - 3) = 0 RETURN count(n) AS c'),
  blind('error: division by zero', 'MATCH (n) WHERE NOT (1/(coalesce(n.lane, 4) - 3) = 5) RETURN count(n) AS c'),
  blind('error: division by zero', 'MATCH (n) WHERE n.marker = "A-test" OR 1/(coalesce(n.lane, 4) - 3) = 5 RETURN count(n) AS c'),
  blind('error: toInteger and friends', 'MATCH (n) WHERE toInteger(coalesce(n.list, "1")) = 1 RETURN count(n) AS c'),
  blind('error: toInteger and friends', 'MATCH (n) WHERE toIntegerList(coalesce(n.s, [1])) = [1] RETURN count(n) AS c'),
  blind('error: toInteger and friends', 'MATCH (n) WHERE toBoolean(coalesce(n.list, true)) RETURN count(n) AS c'),
  blind('error: toInteger and friends', 'MATCH (n) WHERE properties(n).s - 1 = 2 RETURN count(n) AS c'),
  blind('error: toInteger and friends', 'MATCH (n) WHERE split(coalesce(n.lane, "a"), ",") = ["a"] RETURN count(n) AS c'),
  blind('error: toInteger and friends', 'MATCH (n) WHERE duration(coalesce(n.s, "P1D")) IS NOT NULL RETURN count(n) AS c'),
  blind('error: toInteger and friends', 'MATCH (n) WHERE date(coalesce(n.s, "2020-01-01")).year > 0 RETURN count(n) AS c'),
  blind('error: regex', 'MATCH (n) WHERE "x" =~ coalesce(n.pattern, "x") RETURN count(n) AS c'),
  blind('error: regex', 'MATCH (n:Account) WHERE n.externalId =~ coalesce(n.pattern, ".*") RETURN count(n) AS c'),
  blind('error: list index', 'MATCH (n) WHERE [1, 2][coalesce(n.s, 0)] = 1 RETURN count(n) AS c'),
  blind('error: list index', 'MATCH (n) WHERE range(1, 3)[coalesce(n.list, 0)] = 1 RETURN count(n) AS c'),
  blind('error: list index', 'MATCH (n) WHERE substring("abc", coalesce(n.lane, 10) - 10) = "abc" RETURN count(n) AS c'),
  blind('error: list index', 'MATCH (n) WHERE left("abc", 3 - 2 * coalesce(n.lane, 0)) = "abc" RETURN count(n) AS c'),
  blind('error: keys, labels, id', 'MATCH (n) WHERE 1/(size([k IN keys(n) WHERE k = "lane"]) - 1) = 1 RETURN count(n) AS c'),
  blind('error: keys, labels, id', 'MATCH (n) WHERE 1/(size([l IN labels(n) WHERE l = "Trap"]) - 1) = 1 RETURN count(n) AS c'),
  blind('error: keys, labels, id', 'MATCH (n) WHERE 1/(id(n) * 0 + coalesce(n.lane, 4) - 3) = 1 RETURN count(n) AS c'),
  blind('error: keys, labels, id', 'MATCH (n) WHERE 1/(size(elementId(n)) * 0 + coalesce(n.lane, 4) - 3) = 1 RETURN count(n) AS c'),
  blind('error: keys, labels, id', 'MATCH (n) WHERE any(x IN [coalesce(n.lane, 4)] WHERE 1/(x - 3) = 1) RETURN count(n) AS c'),
  blind('error: keys, labels, id', 'MATCH (n) WHERE reduce(a = 0, x IN [coalesce(n.lane, 4)] | a + 1/(x - 3)) = 1 RETURN count(n) AS c'),
  blind('error: where it stands', 'MATCH (t WHERE 1/(coalesce(t.lane, 4) - 3) = 1) RETURN count(t) AS c'),
  blind('error: where it stands', 'OPTIONAL MATCH (t) WHERE 1/(coalesce(t.lane, 4) - 3) = 1 RETURN count(t) AS c'),
  blind('error: where it stands', 'MATCH (t) WITH t AS u WHERE 1/(coalesce(u.lane, 4) - 3) = 1 RETURN count(u) AS c'),
  blind('error: where it stands', 'MATCH (t) WITH coalesce(t.lane, 4) AS l WHERE 1/(l - 3) = 1 RETURN count(*) AS c'),
  blind(
    'error: where it stands',
    'MATCH (a:Account {externalId: "acct-1"}) MATCH (t) WHERE 1/(coalesce(t.lane, 4) - 3) = 1 RETURN count(*) AS c',
  ),
  blind(
    'error: where it stands',
    'MATCH (a:Account {externalId: "acct-1"}) WHERE EXISTS { MATCH (t) WHERE 1/(coalesce(t.lane, 4) - 3) = 1 } RETURN count(a) AS c',
  ),
  blind('error: where it stands', 'RETURN COUNT { MATCH (t) WHERE 1/(coalesce(t.lane, 4) - 3) = 1 } AS c'),
  blind('error: where it stands', 'RETURN size(COLLECT { MATCH (t) WHERE 1/(coalesce(t.lane, 4) - 3) = 1 RETURN t }) AS c'),
  blind('error: where it stands', 'RETURN size([(t)-->() WHERE 1/(coalesce(t.lane, 4) - 3) = 1 | t]) AS c'),
  blind('error: where it stands', 'CALL () { MATCH (t) WHERE 1/(coalesce(t.lane, 4) - 3) = 1 RETURN count(t) AS c } RETURN c'),
  blind(
    'error: where it stands',
    'MATCH (t:Trap) WHERE 1/(coalesce(t.lane, 4) - 3) = 1 RETURN count(t) AS c UNION MATCH (t:Account) RETURN count(t) AS c',
  ),
  blind('error: relationship scan', 'MATCH ()-[r]->() WHERE 1/(coalesce(r.lane, 4) - 3) = 1 RETURN count(r) AS c'),
  blind('error: relationship scan', 'MATCH ()-[r:LINKED]-() WHERE 1/(coalesce(r.lane, 4) - 3) = 1 RETURN count(r) AS c'),
  blind('error: relationship scan', 'MATCH ()-[r WHERE 1/(coalesce(r.lane, 4) - 3) = 1]->() RETURN count(r) AS c'),
  blind('error: relationship scan', 'MATCH ()-[r]->() WHERE properties(r).s - 1 = 1 RETURN count(r) AS c'),
  blind('error: relationship scan', 'MATCH ()-[r]->() WHERE 1/(size([x IN [type(r)] WHERE x = "TRAPPED"]) - 1) = 1 RETURN count(r) AS c'),
  blind('error: relationship scan', 'MATCH p = ()-->() WHERE 1/(coalesce(nodes(p)[0].lane, 4) - 3) = 1 RETURN count(p) AS c'),
  blind(
    'error: relationship scan',
    'MATCH p = ()-[*1..2]->() WHERE all(x IN relationships(p) WHERE 1/(coalesce(x.lane, 4) - 3) = 1) RETURN count(p) AS c',
  ),
  blind('error: relationship scan', 'MATCH ((a)-[r]->(b) WHERE 1/(coalesce(r.lane, 4) - 3) = 1){1,2} RETURN count(*) AS c'),
  // Timing: a condition slow only on a trap (a nested comprehension over its 5,000-element list),
  // from a scan that is quick without the traps; the run's 1,500 ms limit turns the time into an
  // answer the analyst could read.
  blind(
    'timing',
    'MATCH (n:Trap) WHERE CASE WHEN n.slow THEN size([x IN coalesce(n.big, []) WHERE size([y IN coalesce(n.big, []) WHERE y > x]) > 0]) ELSE 0 END > 0 RETURN count(n) AS c',
  ),
  blind(
    'timing',
    'MATCH ()-[r:TRAPPED]->() WHERE CASE WHEN r.slow THEN size([x IN coalesce(r.big, []) WHERE size([y IN coalesce(r.big, []) WHERE y > x]) > 0]) ELSE 0 END > 0 RETURN count(r) AS c',
  ),
  blind(
    'timing',
    'MATCH (n:Account) WHERE CASE WHEN "Trap" IN labels(n) THEN size([x IN coalesce(n.big, []) WHERE size([y IN coalesce(n.big, []) WHERE y > x]) > 0]) ELSE 0 END > 0 RETURN count(n) AS c',
  ),
  blind(
    'timing',
    'MATCH (n:Identifier) WHERE CASE WHEN "slow" IN keys(n) THEN size([x IN coalesce(n.big, []) WHERE size([y IN coalesce(n.big, []) WHERE y > x]) > 0]) ELSE 0 END > 0 RETURN count(n) AS c',
  ),
  refused('bound', `RETURN ${'NOT '.repeat(300)}true AS x`),
  refused('bound', `MATCH (n:Account) RETURN n${'.a'.repeat(300)} AS x`),
  refused('bound', `RETURN ${Array.from({ length: 1000 }, () => '1').join('+')} AS x`),
  refused('bound', `RETURN ${'EXISTS { MATCH (n)-->(m) WHERE '.repeat(12)}true${' }'.repeat(12)} AS x`),
  refused('bound', `MATCH (n0:Account)${Array.from({ length: 9 }, (_, i) => `--(n${i + 1})`).join('')} RETURN count(*) AS c`),
  refused('bound', `MATCH (n:Account) WHERE ${Array.from({ length: 400 }, (_, i) => `n.x = ${i}`).join(' OR ')} RETURN n`),
  refused('bound', 'RETURN $deep AS x', { deep: JSON.parse(`${'['.repeat(3000)}1${']'.repeat(3000)}`) as unknown }),
  refused('bound', 'RETURN 1 AS x', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, i]))),
  refused('bound', 'RETURN $big AS x', { big: 'x'.repeat(300_000) }),
  refused('bound', `RETURN 1 AS x ${'/* padding */ '.repeat(1200)}`),
  refused('bound', `RETURN [${Array.from({ length: 800 }, () => '1').join(',')}] AS x`),
  refused('bound', 'RETURN reduce(x = 0, i IN range(1, 2000000000) | x + i) AS x'),
  refused('bound', 'RETURN size([i IN range(1, 5000) | size([j IN range(1, 5000) | j])]) AS x'),
  refused('bound', 'MATCH (a:Account) RETURN size(range(1, count(a) * 1000000000)) AS x'),
  refused('bound', 'RETURN range(1, $n) AS x', { n: 50_000_000 }),
  refused('pattern value', 'MATCH (n {marker: n.marker}) RETURN n'),
  refused('pattern value', 'MATCH (a:Account)-[:LINKED]->(i {value: a.externalId}) RETURN i'),
];
