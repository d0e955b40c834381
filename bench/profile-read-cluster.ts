// `node --import tsx bench/profile-read-cluster.ts <tenant id> [file.cypher …]`: the verdict's
// cluster read (cypher/graph/read-cluster.cypher, or each file named) under Neo4j's PROFILE, on
// links made from a scope's own graph (its accounts with their identifiers, as a returning user's
// event carries them, and half of them with a new phone), then the same reads timed without
// PROFILE. Prints, per file, the database hits and rows per read (mean, p50, max) and the read's
// p50/p99 in ms. Run it against a scope that `bench/profile-verdict.ts` or the bench has filled
// (DATABASE_URL and the stack as for the bench). Read-only.
import fs from 'node:fs';
import neo4j from 'neo4j-driver';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { readClusterParams, type GraphLink } from '../src/graph/identity-graph.js';

interface Plan {
  operatorType: string;
  dbHits: number;
  rows: number;
  children: Plan[];
}

const tenantId = process.argv[2];
if (!tenantId) throw new Error('usage: profile-read-cluster.ts <tenant id> [file.cypher …]');
const files = process.argv.length > 3 ? process.argv.slice(3) : ['cypher/graph/read-cluster.cypher'];
const SAMPLES = 200;

const deps = createDeps(loadConfig());
const session = deps.graph.session({ defaultAccessMode: neo4j.session.READ });
const sampled = await session.run(
  `MATCH (a:Account {tenantId: $tenantId, mode: 'test'})
   WITH a ORDER BY a.externalId LIMIT $n
   OPTIONAL MATCH (a)-[:LINKED]->(i:Identifier)
   RETURN a.externalId AS account, collect({kind: i.kind, value: i.value}) AS ids`,
  { tenantId, n: neo4j.int(SAMPLES) },
);
await session.close();
const now = Date.now();
const links: GraphLink[] = sampled.records.map((r, n) => {
  const ids = (r.get('ids') as { kind: string | null; value: string }[]).filter((i) => i.kind !== null) as {
    kind: string;
    value: string;
  }[];
  return {
    tenantId,
    mode: 'test',
    eventId: `evt_profile_${n}`,
    eventType: 'login',
    at: now,
    account: r.get('account') as string,
    ids: n % 2 === 0 ? [...ids, { kind: 'phone', value: `+1999${n}` }] : ids,
    card: null,
    cardCountry: null,
    hubThreshold: deps.config.hubThreshold,
  } as GraphLink;
});
if (links.length === 0) throw new Error(`no accounts of ${tenantId} in the graph`);

const total = (p: Plan): { hits: number } => ({ hits: p.dbHits + p.children.reduce((n, c) => n + total(c).hits, 0) });
// Database hits by operator (its type and what it reads), summed over the reads.
const byOperator = new Map<string, number>();
const tally = (p: Plan & { arguments?: Record<string, unknown> }) => {
  const details = String(p.arguments?.Details ?? '').slice(0, 90);
  const key = `${p.operatorType.replace(/@.*/, '')} ${details}`;
  if (p.dbHits > 0) byOperator.set(key, (byOperator.get(key) ?? 0) + p.dbHits);
  for (const c of p.children) tally(c);
};
const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

for (const file of files) {
  const text = fs.readFileSync(file, 'utf8');
  // PROFILE comes before the query's CYPHER options.
  const profiled = `PROFILE ${text.replace(/^\/\/.*\n/gm, '')}`;
  const hits: number[] = [];
  const rows: number[] = [];
  for (const link of links) {
    const s = deps.graph.session({ defaultAccessMode: neo4j.session.READ });
    const result = await s.run(profiled, readClusterParams(link, { recentSince: now - 86_400_000 }));
    await s.close();
    const plan = result.summary.profile as unknown as Plan;
    hits.push(total(plan).hits);
    tally(plan);
    rows.push(plan.rows);
  }
  const ms: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const link of links) {
      const s = deps.graph.session({ defaultAccessMode: neo4j.session.READ });
      const started = performance.now();
      await s.run(text, readClusterParams(link, { recentSince: now - 86_400_000 }));
      ms.push(performance.now() - started);
      await s.close();
    }
  }
  const mean = hits.reduce((a, b) => a + b, 0) / hits.length;
  const top = [...byOperator]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, n]) => `    ${(n / hits.length).toFixed(1).padStart(6)}  ${k}`)
    .join('\n');
  byOperator.clear();
  process.stdout.write(
    `${file}: ${links.length} reads; db hits per read mean ${mean.toFixed(1)}, p50 ${pct(hits, 0.5)}, max ${Math.max(...hits)}; ` +
      `time p50 ${pct(ms, 0.5).toFixed(2)} ms, p99 ${pct(ms, 0.99).toFixed(2)} ms (${ms.length} unprofiled reads)\n  db hits per read by operator:\n${top}\n`,
  );
}
await deps.close();
