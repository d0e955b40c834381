// The guard's bounds on what an analyst's statement and parameters may cost Neo4j before it runs a
// row. Neo4j plans a statement before it reads anything, and its planning time grows
// faster than the text: 9 relationship patterns in one path planned in 0.46 s here and 10 in
// 1.2 s; 500 AND-ed comparisons in 2.0 s; 6 nested EXISTS in 1.4 s; and an expression nested
// about 300 deep (NOT NOT …, n.a.a.…) overflows its stack and never answers. Each bound is set so
// that the worst text it admits plans in well under a second on a small machine
// (`npm run bench:guard` measures the text at every bound; docs/graph.md has the figures). A
// statement past a bound is refused at once, naming the bound. No I/O.
import { child, childrenOf, refused, textOf, tokenAt, kids, ruleOf, unescape, type Token, type Tree } from './cypher-tree.js';

export const GUARD_BOUNDS = {
  // The text, in characters.
  characters: 16_384,
  // Words, names, numbers, strings and signs (comments and spaces aside).
  tokens: 1_500,
  // How deep Neo4j's own expression tree goes: each operator, property step, NOT, parenthesis,
  // list, map, call, CASE or pattern counts a level.
  expressionDepth: 100,
  // Subqueries inside subqueries: EXISTS, COUNT, COLLECT, CALL and pattern comprehensions (each
  // level about triples the planning: 4 deep 0.18 s, 5 deep 0.46 s, 6 deep 1.4 s, 8 deep 23 s).
  subqueryDepth: 4,
  // Subqueries in all, side by side or nested (91 EXISTS side by side planned in 1.1 s).
  subqueries: 24,
  // Relationship patterns in the whole statement (a variable-length or quantified one counts once
  // for each pattern written): a path of 8 planned in 0.2 s, 9 in 0.5 s, 10 in 1.2 s.
  relationshipPatterns: 8,
  // range(): Neo4j evaluates one row's expression without looking at the time (a reduce over
  // range(1, 2000000000) ran 37 s past a 1 s timeout here), so the lists a statement can make from
  // nothing are bounded: every range() takes literals or parameters, and the product of their
  // lengths (nested, they multiply) is at most this.
  rangeElements: 10_000_000,
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
  subqueries: number;
  relationshipPatterns: number;
}

// Measured in one pass, iteratively (a tree too deep for the JavaScript stack is measured too).
export function measureStatement(ctx: Tree, rules: string[], tokens: Token[]): StatementSize {
  const onChannel = tokens.filter((t) => t.channel === 0 && t.type !== -1 && t.text !== '<EOF>').length;
  let relationshipPatterns = 0;
  let subqueryDepth = 0;
  let subqueries = 0;
  // Post-order without recursion: depth of a node = the deepest child + what the node adds.
  const depth = new Map<Tree, number>();
  const stack: { tree: Tree; subqueries: number; seen: boolean }[] = [{ tree: ctx, subqueries: 0, seen: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const rule = ruleOf(top.tree, rules);
    if (!top.seen) {
      top.seen = true;
      if (top.tree.symbol) continue;
      const isSubquery = rule !== undefined && SUBQUERIES.has(rule);
      if (isSubquery) subqueries++;
      const sub = top.subqueries + (isSubquery ? 1 : 0);
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
  return { tokens: onChannel, expressionDepth: depth.get(ctx) ?? 0, subqueryDepth, subqueries, relationshipPatterns };
}

export function checkStatementSize(size: StatementSize): void {
  const at = tokenAt(null);
  if (size.tokens > GUARD_BOUNDS.tokens)
    throw refused(`a statement of ${size.tokens} tokens (the bound is ${GUARD_BOUNDS.tokens} words, names, numbers and signs)`, at);
  if (size.expressionDepth > GUARD_BOUNDS.expressionDepth)
    throw refused(`an expression nested ${size.expressionDepth} levels deep (the bound is ${GUARD_BOUNDS.expressionDepth})`, at);
  if (size.subqueryDepth > GUARD_BOUNDS.subqueryDepth)
    throw refused(`subqueries nested ${size.subqueryDepth} deep (the bound is ${GUARD_BOUNDS.subqueryDepth})`, at);
  if (size.subqueries > GUARD_BOUNDS.subqueries)
    throw refused(`${size.subqueries} subqueries (the bound is ${GUARD_BOUNDS.subqueries} in one statement)`, at);
  if (size.relationshipPatterns > GUARD_BOUNDS.relationshipPatterns) {
    throw refused(
      `${size.relationshipPatterns} relationship patterns (the bound is ${GUARD_BOUNDS.relationshipPatterns} in one statement)`,
      at,
    );
  }
}

// The analyst's parameters, before anything reads them: their count, nesting and size.
export function checkParameters(params: Record<string, unknown>): void {
  const at = tokenAt(null);
  const names = Object.keys(params);
  if (names.length > GUARD_BOUNDS.parameters) throw refused(`${names.length} parameters (the bound is ${GUARD_BOUNDS.parameters})`, at);
  for (const name of names) {
    const deepest = nesting(params[name]);
    if (deepest > GUARD_BOUNDS.parameterDepth)
      throw refused(
        `the parameter $${name} nested more than ${GUARD_BOUNDS.parameterDepth} levels deep (the bound is ${GUARD_BOUNDS.parameterDepth})`,
        at,
      );
  }
  const bytes = Buffer.byteLength(JSON.stringify(params) ?? '', 'utf8');
  if (bytes > GUARD_BOUNDS.parameterBytes)
    throw refused(`parameters of ${bytes} bytes as JSON (the bound is ${GUARD_BOUNDS.parameterBytes})`, at);
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

// The lengths of the statement's range() calls, multiplied: each bound a literal integer or a
// parameter holding one.
export function checkRanges(ctx: Tree, rules: string[], given: Record<string, unknown>): void {
  let product = 1;
  const visit = (t: Tree): void => {
    if (t.symbol) return;
    if (ruleOf(t, rules) === 'functionInvocation') {
      const name = child(t, rules, 'functionName');
      if (name && textOf(name).toLowerCase() === 'range') {
        const args = childrenOf(t, rules, 'functionArgument').map((a) => integerOf(a, rules, given));
        // A parameter not given yet (a query being saved) is checked when the query runs.
        if (args.includes('later')) return;
        if (args.length < 2 || args.some((a) => a === undefined)) {
          throw refused('range() with a bound that is not a whole number written out or given as a parameter', tokenAt(t.start));
        }
        const [start, end, step = 1] = args as number[];
        if (step === 0) throw refused('range() with a step of 0', tokenAt(t.start));
        const length = Math.max(0, Math.floor((end! - start!) / step) + 1);
        product *= Math.max(1, length);
        if (product > GUARD_BOUNDS.rangeElements) {
          throw refused(
            `range() lists of ${product > 1e15 ? 'more than 10^15' : product} elements in all (the bound is ${GUARD_BOUNDS.rangeElements}, their lengths multiplied)`,
            tokenAt(t.start),
          );
        }
      }
    }
    kids(t).forEach(visit);
  };
  visit(ctx);
}

// A whole number written out (a sign allowed) or a parameter holding one ('later': a parameter
// not given).
function integerOf(arg: Tree, rules: string[], given: Record<string, unknown>): number | 'later' | undefined {
  const text = textOf(arg).replace(/\s+/g, '');
  if (/^[+-]?\d+$/.test(text)) return Number(text);
  const param = /^\$(.+)$/.exec(text);
  if (param) {
    const name = unescape(param[1]!);
    if (!Object.hasOwn(given, name)) return 'later';
    const v = given[name];
    return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
  }
  void rules;
  return undefined;
}
