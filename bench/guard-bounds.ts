// What the guard's bounds let through, timed in Neo4j. For each bound, the worst text
// it admits (one step inside the bound) is guarded, checked to be accepted, and planned by Neo4j
// (EXPLAIN, so nothing runs; planning is what a statement costs before its first row), --rounds
// times; one step past the bound is checked to be refused. The range bound is timed running,
// since it costs at run time. Prints the median per shape; the bounds are chosen so that none
// plans for more than a second on this machine (docs/graph.md has the figures of one run). Then
// the guard's own cost per statement of the escape corpus.
// Usage: node --import tsx bench/guard-bounds.ts [--rounds 5] [--json]
// Needs NEO4J_URI (and the rest of a loadable configuration, as `doorman` does).
import { parseArgs } from 'node:util';
import neo4j from 'neo4j-driver';
import { loadConfig } from '../src/config.js';
import { guardCypher } from '../src/graph-queries/cypher-guard.js';
import { GUARD_BOUNDS } from '../src/graph-queries/guard-bounds.js';

const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, json: { type: 'boolean', default: false } } });
const rounds = Number(opts.rounds);
const B = GUARD_BOUNDS;
const repeat = (n: number, f: (i: number) => string, sep: string) => Array.from({ length: n }, (_, i) => f(i)).join(sep);

// [name, the bound it presses, text inside the bound, text past it]
const SHAPES: [string, string, (n: number) => string, number][] = [
  ['NOT NOT … true', 'expressionDepth', (n) => `RETURN ${'NOT '.repeat(n)}true AS x`, B.expressionDepth - 3],
  ['n.a.a.… (property steps)', 'expressionDepth', (n) => `MATCH (n:Account) RETURN n${'.a'.repeat(n)} AS x`, B.expressionDepth - 5],
  ['1 + 1 + …', 'expressionDepth', (n) => `RETURN ${repeat(n, () => '1', ' + ')} AS x`, B.expressionDepth - 3],
  [
    'a.x = 0 OR a.x = 1 OR …',
    'expressionDepth',
    (n) => `MATCH (a:Account) WHERE ${repeat(n, (i) => `a.x = ${i}`, ' OR ')} RETURN a`,
    B.expressionDepth - 5,
  ],
  [
    'a.x = 0 AND 1/a.y = 1 AND … (scope-first parts)',
    'expressionDepth',
    (n) => `MATCH (a:Account) WHERE ${repeat(n, (i) => `1/a.y${i} = 1`, ' AND ')} RETURN a`,
    B.expressionDepth - 5,
  ],
  ['((((1))))', 'expressionDepth', (n) => `RETURN ${'('.repeat(n)}1${')'.repeat(n)} AS x`, B.expressionDepth - 3],
  ['abs(abs(…))', 'expressionDepth', (n) => `RETURN ${'abs('.repeat(n)}1${')'.repeat(n)} AS x`, B.expressionDepth - 3],
  ['RETURN 1 AS a0, 2 AS a1, …', 'tokens', (n) => `RETURN ${repeat(n, (i) => `${i} AS a${i}`, ', ')}`, Math.floor((B.tokens - 1) / 4) - 1],
  ['[0, 1, 2, …]', 'tokens', (n) => `RETURN [${repeat(n, (i) => String(i), ', ')}] AS x`, Math.floor((B.tokens - 6) / 2) - 1],
  [
    'EXISTS { MATCH (m) WHERE 1/m.x = 1 } OR EXISTS … (side by side)',
    'subqueries',
    (n) => `RETURN ${repeat(n, (i) => `EXISTS { MATCH (m${i}) WHERE 1/m${i}.x = 1 }`, ' OR ')} AS x`,
    B.subqueries,
  ],
  [
    'nested EXISTS { MATCH (n)-->(m) WHERE … }',
    'subqueryDepth',
    (n) => `MATCH (a:Account) RETURN ${'EXISTS { MATCH (a)-->(m) WHERE '.repeat(n)}true${' }'.repeat(n)} AS x`,
    B.subqueryDepth,
  ],
  [
    '(n0)--(n1)--…',
    'relationshipPatterns',
    (n) => `MATCH (n0:Account)${repeat(n, (i) => `--(n${i + 1})`, '')} RETURN count(*) AS c`,
    B.relationshipPatterns,
  ],
  [
    '(n0)--(n1)--… WHERE 1/n0.x = 1 AND … (scope-first)',
    'relationshipPatterns',
    (n) =>
      `MATCH (n0:Account)${repeat(n, (i) => `--(n${i + 1})`, '')} WHERE ${repeat(n + 1, (i) => `1/n${i}.x = 1`, ' AND ')} RETURN count(*) AS c`,
    B.relationshipPatterns,
  ],
];

const config = loadConfig();
const driver = neo4j.driver(config.neo4jUri, config.neo4jPassword ? neo4j.auth.basic(config.neo4jUser, config.neo4jPassword) : undefined);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const scope = { tenantId: 'ten_bench_guard', mode: 'test' };

async function timed(text: string, explain: boolean): Promise<number> {
  const session = driver.session({ defaultAccessMode: neo4j.session.READ });
  try {
    const started = performance.now();
    // CYPHER replan=force: every round plans afresh, not from Neo4j's plan cache.
    await session.run(`${explain ? 'EXPLAIN ' : ''}CYPHER replan=force ${text}`, scope);
    return performance.now() - started;
  } finally {
    await session.close();
  }
}

const accepted = (t: string) =>
  guardCypher(t).then(
    () => true,
    () => false,
  );
// The largest n the guard accepts, from a guess.
async function largest(text: (n: number) => string, guess: number): Promise<number> {
  let n = guess;
  while (n > 1 && !(await accepted(text(n)))) n--;
  while (await accepted(text(n + 1))) n++;
  return n;
}

const results: { shape: string; bound: string; at: number; planMs: number; pastRefused: boolean }[] = [];
for (const [shape, bound, text, guess] of SHAPES) {
  const at = await largest(text, guess);
  const guarded = await guardCypher(text(at));
  const pastRefused = !(await accepted(text(at + 1)));
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) ms.push(await timed(guarded.text, true));
  results.push({ shape, bound, at, planMs: Math.round(median(ms)), pastRefused });
}
// The range bound: run, not planned (a product of 3,162 x 3,162 elements, inside 10,000,000).
const side = Math.floor(Math.sqrt(B.rangeElements));
const ranged = await guardCypher(`RETURN reduce(a = 0, i IN range(1, ${side}) | a + size([j IN range(1, ${side}) WHERE j > i])) AS x`);
const runMs: number[] = [];
for (let i = 0; i < rounds; i++) runMs.push(await timed(ranged.text, false));
const rangeRefused = await guardCypher(
  `RETURN reduce(a = 0, i IN range(1, ${side + 10}) | a + size([j IN range(1, ${side + 10}) WHERE j > i])) AS x`,
).then(
  () => false,
  () => true,
);
await driver.close();

// The guard's own cost per statement (parse, bounds, checks, scope-first rewrite): every statement
// of the escape corpus, --rounds x 4 times each, after one warm-up; and a typical question.
const { ESCAPE_CORPUS } = await import('../test/graph-queries/escape-corpus.js');
const costOf = async (text: string, params: Record<string, unknown> = {}) => {
  const ms: number[] = [];
  for (let i = 0; i < rounds * 4; i++) {
    const t = performance.now();
    await guardCypher(text, params).catch(() => undefined);
    ms.push(performance.now() - t);
  }
  return median(ms);
};
await costOf('RETURN 1 AS x');
const corpusCosts: number[] = [];
for (const a of ESCAPE_CORPUS) corpusCosts.push(await costOf(a.text, typeof a.params === 'object' ? a.params : {}));
const typical = await costOf(
  "MATCH (a:Account {externalId: $a})-[:LINKED]->(i:Identifier)<-[:LINKED]-(b:Account) WHERE b <> a AND i.kind IN ['card', 'device'] MATCH (b)-[:IN]->(c:Cluster) RETURN b.externalId AS account, c.id AS cluster, collect(i.kind) AS via ORDER BY account LIMIT 50",
  { a: 'acct-1' },
);
const guardCost = {
  statements: corpusCosts.length,
  medianMs: Number(median(corpusCosts).toFixed(3)),
  typicalMs: Number(typical.toFixed(3)),
};

const out = {
  rounds,
  bounds: B,
  shapes: results,
  range: { elements: side * side, runMs: Math.round(median(runMs)), pastRefused: rangeRefused },
  guardCost,
};
if (opts.json) {
  console.log(JSON.stringify(out, null, 1));
} else {
  console.log(`guard bounds, medians of ${rounds} rounds (EXPLAIN with replan=force: planning only)`);
  for (const r of results)
    console.log(
      `  ${r.planMs.toString().padStart(6)} ms  ${r.shape} (${r.bound}, ${r.at})${r.pastRefused ? '' : '  PAST THE BOUND NOT REFUSED'}`,
    );
  console.log(
    `  ${out.range.runMs.toString().padStart(6)} ms  range() lists of ${out.range.elements} elements, run${rangeRefused ? '' : '  PAST THE BOUND NOT REFUSED'}`,
  );
  console.log(
    `the guard itself: median ${guardCost.medianMs} ms per statement over the ${guardCost.statements} of the escape corpus; ${guardCost.typicalMs} ms for a typical two-MATCH question`,
  );
}
