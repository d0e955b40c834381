// The guard's bounds on what an analyst's statement and parameters may cost Neo4j before it runs a
// row (issue 38). Neo4j plans a statement before it reads anything, and its planning time grows
// faster than the text: 9 relationship patterns in one path planned in 0.46 s here and 10 in
// 1.2 s; 500 AND-ed comparisons in 2.0 s; 16 nested EXISTS in 1.6 s; and an expression nested
// about 300 deep (NOT NOT …, n.a.a.…) overflows its stack and never answers. Each bound is set so
// that the worst text it admits plans in well under a second on a small machine
// (`npm run bench:guard` measures the text at every bound; docs/graph.md has the figures). A
// statement past a bound is refused at once, naming the bound. No I/O.
import { refused, tokenAt, kids, ruleOf, type Token, type Tree } from './cypher-tree.js';

export const GUARD_BOUNDS = {
  // The text, in characters.
  characters: 16_384,
  // Words, names, numbers, strings and signs (comments and spaces aside).
  tokens: 1_500,
  // How deep Neo4j's own expression tree goes: each operator, property step, NOT, parenthesis,
  // list, map, call, CASE or pattern counts a level.
  expressionDepth: 100,
  // Subqueries inside subqueries: EXISTS, COUNT, COLLECT, CALL and pattern comprehensions.
  subqueryDepth: 8,
  // Relationship patterns in the whole statement (a variable-length or quantified one counts once
  // for each pattern written).
  relationshipPatterns: 9,
  // The analyst's parameters: how many, how deep a value nests, and their size as JSON (UTF-8).
  parameters: 32,
  parameterDepth: 16,
  parameterBytes: 256 * 1024,
} as const;

// Rules whose every token child is one more level of Neo4j's tree (a run of NOT, a chain of +,
// AND, comparisons); `postFix` children (.a, [i], :Label) are one level each too.
const OPERATOR_CHAIN = /^expression\d*$/;
const SUBQUERIES = new Set(['existsExpression', 'countExpression', 'collectExpression', 'subqueryClause', 'patternComprehension']);

export interface StatementSize {
  tokens: number;
  expressionDepth: number;
  subqueryDepth: number;
  relationshipPatterns: number;
}

// Measured in one pass, iteratively (a tree too deep for the JavaScript stack is measured too).
export function measureStatement(ctx: Tree, rules: string[], tokens: Token[]): StatementSize {
  const onChannel = tokens.filter((t) => t.channel === 0 && t.type !== -1 && t.text !== '<EOF>').length;
  let relationshipPatterns = 0;
  let subqueryDepth = 0;
  // Post-order without recursion: depth of a node = the deepest child + what the node adds.
  const depth = new Map<Tree, number>();
  const stack: { tree: Tree; subqueries: number; seen: boolean }[] = [{ tree: ctx, subqueries: 0, seen: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const rule = ruleOf(top.tree, rules);
    if (!top.seen) {
      top.seen = true;
      if (top.tree.symbol) continue;
      const sub = top.subqueries + (rule && SUBQUERIES.has(rule) ? 1 : 0);
      if (sub > subqueryDepth) subqueryDepth = sub;
      if (rule === 'relationshipPattern') relationshipPatterns++;
      for (const c of kids(top.tree)) stack.push({ tree: c, subqueries: sub, seen: false });
      continue;
    }
    stack.pop();
    if (top.tree.symbol) {
      depth.set(top.tree, 0);
      continue;
    }
    const children = kids(top.tree);
    let deepest = 0;
    for (const c of children) deepest = Math.max(deepest, depth.get(c) ?? 0);
    let adds = 0;
    if (children.length > 1) {
      if (rule && OPERATOR_CHAIN.test(rule)) {
        adds = children.filter((c) => c.symbol || ruleOf(c, rules) === 'postFix' || ruleOf(c, rules) === 'comparisonExpression6').length;
      } else {
        adds = 1;
      }
    }
    depth.set(top.tree, deepest + adds);
    for (const c of children) depth.delete(c);
  }
  return { tokens: onChannel, expressionDepth: depth.get(ctx) ?? 0, subqueryDepth, relationshipPatterns };
}

export function checkStatementSize(size: StatementSize): void {
  const at = tokenAt(null);
  if (size.tokens > GUARD_BOUNDS.tokens) throw refused(`a statement of ${size.tokens} tokens (the bound is ${GUARD_BOUNDS.tokens} words, names, numbers and signs)`, at);
  if (size.expressionDepth > GUARD_BOUNDS.expressionDepth) throw refused(`an expression nested ${size.expressionDepth} levels deep (the bound is ${GUARD_BOUNDS.expressionDepth})`, at);
  if (size.subqueryDepth > GUARD_BOUNDS.subqueryDepth) throw refused(`subqueries nested ${size.subqueryDepth} deep (the bound is ${GUARD_BOUNDS.subqueryDepth})`, at);
  if (size.relationshipPatterns > GUARD_BOUNDS.relationshipPatterns) {
    throw refused(`${size.relationshipPatterns} relationship patterns (the bound is ${GUARD_BOUNDS.relationshipPatterns} in one statement)`, at);
  }
}

// The analyst's parameters, before anything reads them: their count, nesting and size.
export function checkParameters(params: Record<string, unknown>): void {
  const at = tokenAt(null);
  const names = Object.keys(params);
  if (names.length > GUARD_BOUNDS.parameters) throw refused(`${names.length} parameters (the bound is ${GUARD_BOUNDS.parameters})`, at);
  for (const name of names) {
    const deepest = nesting(params[name]);
    if (deepest > GUARD_BOUNDS.parameterDepth) throw refused(`the parameter $${name} nested ${deepest === Infinity ? 'too' : deepest} levels deep (the bound is ${GUARD_BOUNDS.parameterDepth})`, at);
  }
  const bytes = Buffer.byteLength(JSON.stringify(params) ?? '', 'utf8');
  if (bytes > GUARD_BOUNDS.parameterBytes) throw refused(`parameters of ${bytes} bytes as JSON (the bound is ${GUARD_BOUNDS.parameterBytes})`, at);
}

// How deep lists and maps nest in a value; iterative, and it stops counting past the bound.
function nesting(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    const level = d + 1;
    if (level > deepest) deepest = level;
    if (deepest > GUARD_BOUNDS.parameterDepth) return deepest;
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push([x, level]);
  }
  return deepest;
}
