// The shape of the Cypher parser's output that the guard relies on (src/graph-queries/cypher-guard.ts
// and guard-allowlist.ts), held against a committed record: the pinned pre-release's version, its
// grammar's rule names, and the parse trees of statements that exercise every construct the guard
// reads (node patterns with and without maps and WHERE, procedure calls, function names, NEXT,
// subqueries, quantified and shortest paths, comments, syntax errors, error nodes). An upgrade of
// @neo4j-cypher/language-support that changes any of it fails here, loudly, before a statement is
// guarded by a tree the guard was not written for. After reviewing the guard against the new shape,
// record it again with: UPDATE_PARSER_SHAPE=1 npx mocha test/graph-queries/parser-shape.test.ts
import { expect } from 'chai';
import fs from 'node:fs';
import { CypherLanguageService } from '@neo4j-cypher/language-support';
import { ALLOWED_RULES, REFUSED_RULES } from '../../src/graph-queries/guard-allowlist.js';

const RECORD = 'test/graph-queries/parser-shape.json';
const HOW = `review src/graph-queries/cypher-guard.ts and guard-allowlist.ts against the new shape, then run UPDATE_PARSER_SHAPE=1 npx mocha test/graph-queries/parser-shape.test.ts`;

// Statements chosen for what the guard reads in them, not for being valid in our scope.
const CORPUS = [
  "MATCH (a:Account {id: $x})-[:LINKED]->(i WHERE i.kind = 'email') RETURN a, count(*) AS n",
  'MATCH (n) RETURN n',
  'MATCH (n {}) RETURN n',
  'MATCH (n $props) RETURN n',
  'MATCH p = shortestPath((a)-[*..4]-(b)) RETURN length(p)',
  'MATCH (a)((x)-[:LINKED]->(y)){1,3}(b) RETURN b',
  'MATCH (a) WHERE EXISTS { (a)--(b) } AND COUNT { (a)--() } > 1 RETURN COLLECT { MATCH (a)--(c) RETURN c.id } AS ids',
  'MATCH (a) CALL (a) { MATCH (a)--(b) RETURN b } RETURN [(a)--(c:Identifier) | c.value] AS values, date.truncate("day", a.at) AS day',
  'MATCH (a) RETURN a NEXT MATCH (b) RETURN b',
  'CALL db.labels() YIELD label RETURN label',
  'MATCH (a) // a comment\nRETURN /* another */ a',
  'MATCH (a) RETURN a; MATCH (b) RETURN b',
  'MATCH (a RETURN a',
  'MATCH (a) RETURN a +',
  "MATCH (a) RETURN 'unterminated",
  'MATCH (a) RETURN a ` b',
  'EXPLAIN MATCH (a) RETURN a',
  'MATCH (a) SET a.x = 1',
  // What the scope-first rewrite (scope-first.ts) and the bounds (guard-bounds.ts) read: conditions
  // and their AND-ed parts, comparisons, label tests, renames, comprehensions and ranges.
  "MATCH (a:Account)-[r:LINKED WHERE r.at > 1]->(i) WHERE a.id = $id AND i.v IN [1, -2] AND i.s STARTS WITH 'x' AND a:Account AND a.k IS NOT NULL AND NOT 1/a.x = 2 RETURN a",
  'MATCH p = (a)-[*1..2]-(b) WITH *, a AS z, b.x AS y WHERE elementId(z) = $e OR id(z) = y UNWIND nodes(p) AS n RETURN n ORDER BY n.x',
  'OPTIONAL MATCH (a) CALL (a) { MATCH (a)--(b) RETURN b } RETURN [x IN range(1, 3) WHERE x > 0 | x] AS l, reduce(s = 0, i IN [1] | s + i) AS t, all(w IN [1] WHERE w > 0) AS al',
  'RETURN EXISTS { MATCH (m) WHERE m.v = 1 RETURN m } AS e, COUNT { (a)-->(z WHERE z.q = 1) } AS c, [p = (a)-->(w) WHERE w.q = 1 | w] AS pc, NOT NOT true AS n, 1 + 2 + 3 AS s, a.b.c AS d',
];

type Tree = { symbol?: { text?: string }; ruleIndex?: number; children?: Tree[] | null; constructor: { name: string } };
type Statement = {
  parser: { ruleNames: string[]; numberOfSyntaxErrors: number };
  errorTracker?: { caughtExceptions?: Map<unknown, { offendingToken?: { text?: string } | null }> };
  tokens: { text?: string; type: number; channel: number; start: number; stop: number; line: number; column: number }[];
  ctx: Tree;
  syntaxErrors: { message: string; offsets: { start: number } }[];
};

// One line per tree: (rule child…), tokens quoted, error nodes marked !.
function render(tree: Tree, rules: string[]): string {
  if (tree.symbol) return `${tree.constructor.name === 'ErrorNode' ? '!' : ''}${JSON.stringify(tree.symbol.text)}`;
  return `(${rules[tree.ruleIndex ?? -1] ?? '?'}${(tree.children ?? []).map((c) => ` ${render(c, rules)}`).join('')})`;
}

function shapeOf() {
  const service = new CypherLanguageService({ consoleCommandsEnabled: false }) as unknown as {
    parse(q: string): { statementsParsing: Statement[] };
  };
  const version = (JSON.parse(fs.readFileSync('node_modules/@neo4j-cypher/language-support/package.json', 'utf8')) as { version: string })
    .version;
  let ruleNames: string[] = [];
  const statements = CORPUS.map((text) => {
    const parsed = service.parse(text).statementsParsing;
    ruleNames = parsed[0]!.parser.ruleNames;
    return {
      text,
      statements: parsed.map((s) => ({
        tree: render(s.ctx, s.parser.ruleNames),
        tokens: s.tokens.map((t) => [t.text, t.channel, t.start, t.stop, t.line, t.column]),
        syntaxErrors: s.syntaxErrors.map((e) => ({ message: e.message, start: e.offsets.start })),
        numberOfSyntaxErrors: s.parser.numberOfSyntaxErrors,
        caught: [...(s.errorTracker?.caughtExceptions?.values() ?? [])].map((c) => c.offendingToken?.text ?? null),
      })),
    };
  });
  return { version, ruleNames, statements };
}

describe("the Cypher parser's shape the guard relies on", function () {
  this.timeout(30_000);
  const shape = shapeOf();

  before(() => {
    if (process.env.UPDATE_PARSER_SHAPE) fs.writeFileSync(RECORD, `${JSON.stringify(shape, null, 1)}\n`);
  });

  it('is the pinned pre-release, installed at exactly the version package.json names', () => {
    const pinned = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> }).dependencies[
      '@neo4j-cypher/language-support'
    ];
    expect(pinned, 'pinned exactly (no range): an upgrade is a decision, made here').to.match(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(shape.version).to.equal(pinned);
    const recorded = JSON.parse(fs.readFileSync(RECORD, 'utf8')) as { version: string };
    expect(shape.version, `the parser is not the version whose shape was recorded: ${HOW}`).to.equal(recorded.version);
  });

  it('names every grammar rule the allowlist and its refusals name', () => {
    const names = new Set(shape.ruleNames);
    expect(
      [...ALLOWED_RULES].filter((r) => !names.has(r)),
      `rules the allowlist names that the grammar no longer has: ${HOW}`,
    ).to.deep.equal([]);
    expect(
      Object.keys(REFUSED_RULES).filter((r) => !names.has(r)),
      `refusal words for rules the grammar no longer has: ${HOW}`,
    ).to.deep.equal([]);
  });

  it('has the grammar rules it had when the guard was written', () => {
    const recorded = JSON.parse(fs.readFileSync(RECORD, 'utf8')) as { ruleNames: string[] };
    const added = shape.ruleNames.filter((r) => !recorded.ruleNames.includes(r));
    const removed = recorded.ruleNames.filter((r) => !shape.ruleNames.includes(r));
    expect({ added, removed }, `the grammar's rules changed: ${HOW}`).to.deep.equal({ added: [], removed: [] });
    expect(shape.ruleNames, `the grammar's rule indexes moved: ${HOW}`).to.deep.equal(recorded.ruleNames);
  });

  for (const [i, text] of CORPUS.entries()) {
    it(`parses ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)} into the recorded tree`, () => {
      const recorded = (JSON.parse(fs.readFileSync(RECORD, 'utf8')) as { statements: unknown[] }).statements[i];
      expect(shape.statements[i], `the parse of this statement changed: ${HOW}`).to.deep.equal(recorded);
    });
  }
});
