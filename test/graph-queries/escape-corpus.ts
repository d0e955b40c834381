// The escape corpus of issue 23 and the graph it runs against: two tenants, each in both modes,
// the same identifier values in all four scopes, a `marker` on every node naming its scope. The
// analyst is A in test; the scopes differ in size, so a count that leaked would show.
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
     MATCH ({tenantId: $a, mode: 'test'})-[r]->() RETURN nodes, count(r) AS relationships`, { a });
  const foreign = await deps.graph.executeQuery(
    `MATCH (n) WHERE n.tenantId IN [$a, $b] AND n.marker <> 'A-test' RETURN collect(elementId(n)) AS e, collect(id(n)) AS i`, { a, b });
  return {
    nodes: own.records[0]!.get('nodes') as number,
    relationships: own.records[0]!.get('relationships') as number,
    accounts: 4,
    foreignElementIds: foreign.records[0]!.get('e') as string[],
    foreignIds: foreign.records[0]!.get('i') as number[],
    otherTenant: b,
  };
}

export interface Attempt {
  kind: string;
  text: string;
  params?: Record<string, unknown> | ((s: Seeded) => Record<string, unknown>);
  // refused: by the guard; timeout: by Neo4j at the run's timeout; scoped: answered from A-test only.
  expect: 'refused' | 'timeout' | 'scoped';
  check?: (rows: Record<string, unknown>[], s: Seeded) => void;
}

const refused = (kind: string, text: string, params?: Attempt['params']): Attempt => ({ kind, text, params, expect: 'refused' });
const scoped = (kind: string, text: string, check?: Attempt['check'], params?: Attempt['params']): Attempt => ({ kind, text, params, expect: 'scoped', check });

// Every value of column m is A-test's marker (a leak of a node without one would show as null).
const onlyOwn = (rows: Record<string, unknown>[]) => {
  for (const r of rows) expect([r.m].flat(), JSON.stringify(r)).to.satisfy((ms: unknown[]) => ms.every((m) => m === 'A-test'));
};
const some = (rows: Record<string, unknown>[]) => {
  expect(rows.length).to.be.greaterThan(0);
  onlyOwn(rows);
};
const none = (rows: Record<string, unknown>[]) => expect(rows).to.deep.equal([]);
const count = (what: 'nodes' | 'relationships' | 'accounts') => (rows: Record<string, unknown>[], s: Seeded) => expect(rows).to.deep.equal([{ c: s[what] }]);
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
  scoped('id lookup', 'MATCH (a:Account) WITH collect(id(a)) AS own MATCH (n) WHERE id(n) IN own + $ids RETURN n.marker AS m', some, (s) => ({ ids: s.foreignIds })),
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
  scoped('subquery expression', 'RETURN COUNT { MATCH (n) WHERE n.marker STARTS WITH "B" RETURN n } AS c', (rows) => expect(rows).to.deep.equal([{ c: 0 }])),
  scoped('CALL subquery', 'CALL { MATCH (n) RETURN n } RETURN n.marker AS m', some),
  scoped('CALL subquery', 'CALL () { MATCH (n:Account) RETURN n.marker AS m } RETURN m', some),
  scoped('CALL subquery', 'CALL () { MATCH (n) RETURN count(n) AS c } RETURN c', count('nodes')),
  scoped('CALL subquery', 'MATCH (a:Account) CALL (a) { MATCH (a)-[*1..3]-(x) RETURN x LIMIT 50 } RETURN DISTINCT x.marker AS m', some),
  scoped('quantified path', 'MATCH (a:Account {externalId: "acct-1"}) ((x)-[]-(y)){1,4} (z) RETURN DISTINCT z.marker AS m', some),
  scoped('quantified path', 'MATCH (a:Account {externalId: "acct-1"})-[]-{1,3}(z) RETURN DISTINCT z.marker AS m', some),
  scoped('quantified path', 'MATCH p = ANY SHORTEST (a:Account {externalId: "acct-1"})-[]-+(b {marker: "B-test"}) RETURN p', none),
  scoped('shortestPath', 'MATCH p = shortestPath((a:Account {externalId: "acct-1"})-[*]-(b {marker: "B-test"})) RETURN p', none),
  scoped('shortestPath', 'MATCH (a:Account {externalId: "acct-1"}) MATCH (b:Identifier|Account|Cluster) WHERE b <> a MATCH p = shortestPath((a)-[*..10]-(b)) RETURN DISTINCT b.marker AS m', some),
  scoped('shortestPath', 'MATCH p = allShortestPaths((a:Account)-[*..4]-(b:Account)) WHERE a <> b RETURN DISTINCT [n IN nodes(p) | n.marker] AS m', some),
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
];
