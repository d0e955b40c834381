import { guardCypher } from './src/graph-queries/cypher-guard.js';
import { CypherLanguageService } from '@neo4j-cypher/language-support';
const q = "MATCH (a:Account {externalId: $a})-[:LINKED]->(i:Identifier)<-[:LINKED]-(b:Account) WHERE b <> a AND i.kind IN ['card', 'device'] MATCH (b)-[:IN]->(c:Cluster) RETURN b.externalId AS account, c.id AS cluster, collect(i.kind) AS via ORDER BY account LIMIT 50";
const q2 = "MATCH (a:Account {externalId: $a})-[:LINKED]->(i:Identifier)<-[:LINKED]-(b:Account) WHERE b <> a RETURN b";
const s = new CypherLanguageService({ consoleCommandsEnabled: false }) as any;
const med = (f: () => unknown) => { const xs: number[] = []; for (let i = 0; i < 60; i++) { const t = performance.now(); f(); xs.push(performance.now() - t); } xs.sort((a, b) => a - b); return xs[30]!.toFixed(3); };
console.log('parse q', med(() => s.parse(q)), 'parse q2', med(() => s.parse(q2)));
const g = async (t: string) => { const xs: number[] = []; for (let i = 0; i < 60; i++) { const t0 = performance.now(); await guardCypher(t, { a: 'x' }); xs.push(performance.now() - t0); } xs.sort((a, b) => a - b); return xs[30]!.toFixed(3); };
console.log('guard q', await g(q), 'guard q2', await g(q2));
