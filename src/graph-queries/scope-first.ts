// Scope first: an analyst's condition is never evaluated on a node or relationship
// outside the analyst's scope. The guard scopes every node pattern with `{tenantId, mode}`, but
// Neo4j promises no order among the predicates of one filter: it may test `1/(n.lane - 3) = 7`
// on a node of another tenant (or on a node with no scope) before it tests the node's tenant, and
// the error, or the time taken, would tell the analyst something about that node. So every
// condition a pattern is matched with (a MATCH's WHERE, a WHERE inside a node, relationship or
// quantified pattern, and those of EXISTS, COUNT, COLLECT and pattern comprehensions) is split
// into its AND-ed parts, and each part is guarded by a CASE that tests the scope of the pattern
// variables it reads first:
//
//   WHERE a.id = $id AND 1/(a.lane - 3) = 7
//   WHERE a.id = $id AND CASE WHEN (a IS NULL OR (a.tenantId = $tenantId AND a.mode = $mode)) THEN (1/(a.lane - 3) = 7) END
//
// Neo4j evaluates a CASE's branch only when its condition holds, whatever order it puts the
// filter's parts in. A part that cannot fail and costs the same on every node is left as written,
// so indexes still serve it: a property, id() or elementId() compared with a literal, a parameter
// or a variable (=, <>, <, >, <=, >=, IN, STARTS WITH), two variables compared (a <> b),
// IS [NOT] NULL, and a label test. A property value inside a pattern
// (`(n {k: v})`) must be a literal or a parameter for the same reason.
//
// The variables tested are those a pattern binds (nodes, relationships, paths, quantified groups)
// and their plain renames (`WITH a AS b`). A value computed from them in a projection (`WITH
// n.lane AS y`) exists only after the rows it came from passed their scope, and Neo4j does not
// move a projection below the filter that made its rows. Conditions outside patterns (RETURN,
// ORDER BY, UNWIND) run on rows that already passed. No I/O.
import { child, childrenOf, hasToken, kids, quoteName, refused, ruleOf, textOf, tokenAt, variableName, type Tree } from './cypher-tree.js';

// What a variable holds, as far as its scope can be tested: a node, a relationship, a list of
// relationships (variable length), a list of nodes or relationships (a quantified group), a path;
// null for a value computed by the query (nothing to test: see above).
type Kind = 'node' | 'rel' | 'rels' | 'nodes' | 'path';
type Scope = Map<string, Kind | null>;

export interface ScopeEdits {
  // Text to put before a token (outermost first) and after it (innermost first), by offset.
  prefix: Map<number, string>;
  suffix: Map<number, string>;
}

const COMPARISONS = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);
// What a constant is made of: literals, parameters, lists and maps of them.
const CONSTANT_RULES = new Set([
  'literal',
  'numberLiteral',
  'signedIntegerLiteral',
  'stringLiteral',
  'listLiteral',
  'map',
  'parameter',
  'parameterName',
  'propertyKeyName',
  'symbolicNameString',
  'escapedSymbolicNameString',
  'unescapedSymbolicNameString',
  'unescapedSymbolicNameString_',
]);
const ITERATION = '`doorman scope`';

const inScope = (v: string) => `${v}.tenantId = $tenantId AND ${v}.mode = $mode`;
function scopeTest(name: string, kind: Kind): string {
  const v = quoteName(name);
  switch (kind) {
    case 'node':
      return `(${v} IS NULL OR (${inScope(v)}))`;
    case 'rel':
      return `(${v} IS NULL OR (${inScope(`startNode(${v})`)}))`;
    case 'rels':
      return `(${v} IS NULL OR all(${ITERATION} IN ${v} WHERE ${inScope(`startNode(${ITERATION})`)}))`;
    case 'nodes':
      return `(${v} IS NULL OR all(${ITERATION} IN ${v} WHERE ${inScope(ITERATION)}))`;
    case 'path':
      return `(${v} IS NULL OR all(${ITERATION} IN nodes(${v}) WHERE ${inScope(ITERATION)}))`;
  }
}

export function scopeFirst(root: Tree, rules: string[]): ScopeEdits {
  const edits: ScopeEdits = { prefix: new Map(), suffix: new Map() };
  const rule = (t: Tree) => ruleOf(t, rules);
  const collapse = (t: Tree): Tree => {
    let c = t;
    while (
      !c.symbol &&
      kids(c).length === 1 &&
      !kids(c)[0]!.symbol &&
      !/^(variable|literal|parameter|functionInvocation)$/.test(rule(c) ?? '')
    )
      c = kids(c)[0]!;
    return c;
  };

  const find = (t: Tree, name: string): Tree | undefined => {
    if (rule(t) === name) return t;
    for (const c of kids(t)) {
      if (c.symbol) continue;
      const f = find(c, name);
      if (f) return f;
    }
    return undefined;
  };

  // ---- queries and clauses ----

  // The query inside a subquery: `{ MATCH … RETURN … }`.
  const innerQuery = (t: Tree): Tree | undefined => {
    const q = child(t, rules, 'regularQuery') ?? child(t, rules, 'queryWithLocalDefinitions');
    return q && find(q, 'regularQuery');
  };

  function walkRegular(q: Tree, scope: Scope): Scope {
    let returned: Scope = new Map();
    let first = true;
    const visitUnion = (t: Tree) => {
      for (const c of kids(t)) {
        if (rule(c) === 'singleQuery') {
          const r = walkSingle(c, new Map(scope));
          if (first) returned = r;
          first = false;
        } else if (rule(c) === 'union') {
          visitUnion(c);
        }
      }
    };
    visitUnion(q);
    return returned;
  }

  function walkSingle(q: Tree, scope: Scope): Scope {
    let current = scope;
    let returned: Scope = new Map();
    for (const c of kids(q)) {
      if (rule(c) !== 'clause') continue;
      const clause = kids(c)[0]!;
      switch (rule(clause)) {
        case 'matchClause': {
          const patterns = child(clause, rules, 'patternList')!;
          current = new Map(current);
          declarePatterns(patterns, current, false);
          patternSites(patterns, current);
          const where = child(clause, rules, 'whereClause');
          if (where) predicate(child(where, rules, 'expression')!, current);
          break;
        }
        case 'withClause': {
          const body = child(clause, rules, 'returnBody')!;
          const projected = project(body, current);
          nestedInBody(body, current, projected);
          current = projected;
          const where = child(clause, rules, 'whereClause');
          if (where) predicate(child(where, rules, 'expression')!, current);
          break;
        }
        case 'returnClause': {
          const body = child(clause, rules, 'returnBody')!;
          returned = project(body, current);
          nestedInBody(body, current, returned);
          break;
        }
        case 'unwindClause': {
          const e = child(clause, rules, 'expression');
          if (e) nested(e, current);
          const alias = child(clause, rules, 'variable');
          current = new Map(current);
          if (alias) current.set(variableName(alias), null);
          break;
        }
        case 'subqueryClause': {
          const inner = innerQuery(clause);
          const importing = child(clause, rules, 'subqueryScope');
          let imported: Scope;
          if (!importing || hasToken(importing, '*')) imported = new Map(current);
          else
            imported = new Map(
              childrenOf(importing, rules, 'variable').map((v) => [variableName(v), current.get(variableName(v)) ?? null]),
            );
          const r = inner ? walkRegular(inner, imported) : new Map<string, Kind | null>();
          current = new Map([...current, ...r]);
          break;
        }
        default:
          nested(clause, current);
      }
    }
    return returned;
  }

  // The variables a WITH or RETURN passes on: `*` keeps them all; `a` and `a AS b` keep a's kind.
  function project(body: Tree, scope: Scope): Scope {
    const items = child(body, rules, 'returnItems');
    const out: Scope = new Map();
    if (!items) return out;
    if (hasToken(items, '*')) for (const [k, v] of scope) out.set(k, v);
    for (const item of childrenOf(items, rules, 'returnItem')) {
      const e = child(item, rules, 'expression')!;
      const alias = child(item, rules, 'variable');
      const v = asVariable(e);
      const plain = v ? variableName(v) : undefined;
      const name = alias ? variableName(alias) : plain;
      if (name === undefined) continue;
      out.set(name, plain !== undefined ? (scope.get(plain) ?? null) : null);
    }
    return out;
  }

  function nestedInBody(body: Tree, before: Scope, after: Scope): void {
    const both: Scope = new Map([...before, ...after]);
    for (const c of kids(body)) if (!c.symbol) nested(c, rule(c) === 'returnItems' ? before : both);
  }

  // ---- patterns ----

  // Adds what a pattern binds. Inside a quantified pattern a variable is one node or relationship;
  // after it, the group of them.
  function declarePatterns(t: Tree, scope: Scope, grouped: boolean): void {
    const r = rule(t);
    if (r === 'pattern') {
      const v = kids(t)[0];
      if (v && rule(v) === 'variable' && hasToken(t, '=')) scope.set(variableName(v), grouped ? null : 'path');
    }
    if (r === 'nodePattern' || r === 'relationshipPattern') {
      const v = child(t, rules, 'variable');
      if (v && !scope.has(variableName(v))) {
        const many = r === 'relationshipPattern' && child(t, rules, 'pathLength') !== undefined;
        scope.set(variableName(v), r === 'nodePattern' ? (grouped ? 'nodes' : 'node') : grouped || many ? 'rels' : 'rel');
      }
      return;
    }
    if (r === 'parenthesizedPath') {
      const quantified = child(t, rules, 'quantifier') !== undefined;
      for (const c of kids(t)) if (!c.symbol && rule(c) !== 'expression') declarePatterns(c, scope, grouped || quantified);
      return;
    }
    if (r === 'expression' || r === 'whereClause') return;
    for (const c of kids(t)) if (!c.symbol) declarePatterns(c, scope, grouped);
  }

  // The conditions inside a pattern: node, relationship and quantified-pattern WHEREs, and the
  // property maps (constants only).
  function patternSites(t: Tree, scope: Scope): void {
    const r = rule(t);
    if (r === 'nodePattern' || r === 'relationshipPattern') {
      const props = child(t, rules, 'properties');
      const map = props && child(props, rules, 'map');
      if (map) {
        for (const value of childrenOf(map, rules, 'expression')) {
          if (!isConstant(value))
            throw refused('a property value in a pattern that is not a literal or a parameter (compare it in WHERE)', tokenAt(value.start));
        }
      }
      const where = child(t, rules, 'expression');
      if (where && hasToken(t, 'WHERE')) predicate(where, scope);
      return;
    }
    if (r === 'parenthesizedPath') {
      // Inside, its variables are single nodes and relationships.
      const own: Scope = new Map();
      for (const c of kids(t)) if (!c.symbol && rule(c) !== 'expression') declarePatterns(c, own, false);
      const inner: Scope = new Map([...scope, ...own]);
      for (const c of kids(t)) if (!c.symbol && rule(c) !== 'expression') patternSites(c, inner);
      const where = child(t, rules, 'expression');
      if (where) predicate(where, inner);
      return;
    }
    if (r === 'expression') return;
    for (const c of kids(t)) if (!c.symbol) patternSites(c, scope);
  }

  // ---- conditions ----

  function predicate(e: Tree, scope: Scope): void {
    for (const part of conjuncts(e)) {
      if (!isSafe(part)) {
        const names = [...referenced(part, scope)].filter((n) => scope.get(n));
        if (names.length > 0) {
          const test = names
            .sort()
            .map((n) => scopeTest(n, scope.get(n)!))
            .join(' AND ');
          addPrefix(part.start!.start, `CASE WHEN ${test} THEN (`);
          addSuffix(part.stop!.start, ') END');
        }
      }
      nested(part, scope);
    }
  }

  const addPrefix = (at: number, text: string) => edits.prefix.set(at, (edits.prefix.get(at) ?? '') + text);
  const addSuffix = (at: number, text: string) => edits.suffix.set(at, text + (edits.suffix.get(at) ?? ''));

  // The AND-ed parts of a condition (expression > expression11 > expression10: x AND y AND …).
  function conjuncts(e: Tree): Tree[] {
    let t = e;
    for (const level of ['expression', 'expression11']) {
      if (rule(t) !== level || kids(t).length !== 1) return [e];
      t = kids(t)[0]!;
    }
    return rule(t) === 'expression10' ? childrenOf(t, rules, 'expression9') : [e];
  }

  // A part that cannot raise an error and costs the same on every node.
  function isSafe(part: Tree): boolean {
    const e9 = part;
    if (kids(e9).length !== 1) return false; // NOT …
    const e8 = kids(e9)[0]!;
    const c8 = kids(e8);
    if (c8.length === 3 && c8[1]!.symbol && COMPARISONS.has(c8[1]!.symbol.text ?? '')) {
      const [l, r] = [c8[0]!, c8[2]!];
      return (isSubject(l) && isOperand(r)) || (isOperand(l) && isSubject(r)) || (isVariable(l) && isVariable(r));
    }
    if (c8.length !== 1) return false;
    const e7 = c8[0]!;
    const c7 = kids(e7);
    if (c7.length !== 2 || rule(c7[1]!) !== 'comparisonExpression6') return false;
    const [subject, comparison] = c7 as [Tree, Tree];
    const tokens = kids(comparison)
      .filter((c) => c.symbol)
      .map((c) => c.symbol!.text!.toUpperCase());
    const operand = kids(comparison).find((c) => !c.symbol && rule(c) !== 'labelExpression' && rule(c)?.startsWith('expression'));
    if (tokens[0] === 'IN' || (tokens[0] === 'STARTS' && tokens[1] === 'WITH'))
      return isSubject(subject) && operand !== undefined && isOperand(operand);
    if (tokens[0] === 'IS' && tokens[tokens.length - 1] === 'NULL') return isSubject(subject) || isVariable(subject);
    if ((tokens[0] === ':' || tokens[0] === 'IS') && kids(comparison).some((c) => rule(c)?.startsWith('labelExpression')) && !operand) {
      return isVariable(subject) && !containsRule(comparison, 'expression');
    }
    return false;
  }

  // The variable an expression is, if it is one (down its chain of single children).
  function asVariable(e: Tree): Tree | undefined {
    let t = e;
    for (;;) {
      if (rule(t) === 'variable') return t;
      if (t.symbol || kids(t).length !== 1 || kids(t)[0]!.symbol) return undefined;
      t = kids(t)[0]!;
    }
  }
  const isVariable = (e: Tree) => asVariable(e) !== undefined;
  // `v.key`
  function isProperty(e: Tree): boolean {
    const t = collapse(e);
    if (rule(t) !== 'expression2' || kids(t).length !== 2) return false;
    const [base, post] = kids(t) as [Tree, Tree];
    return isVariable(base) && rule(post) === 'postFix' && rule(kids(post)[0]!) === 'property';
  }
  // What a safe comparison reads of an entity: a property, or its id or element id.
  const isSubject = (e: Tree): boolean => isProperty(e) || isIdOf(e);
  function isIdOf(e: Tree): boolean {
    const t = collapse(e);
    if (rule(t) !== 'functionInvocation') return false;
    const name = child(t, rules, 'functionName');
    const args = childrenOf(t, rules, 'functionArgument');
    return name !== undefined && ['id', 'elementid'].includes(textOf(name).toLowerCase()) && args.length === 1 && isVariable(args[0]!);
  }
  // What it is compared with: a constant, or a variable (a comparison never fails, whatever the value).
  const isOperand = (e: Tree): boolean => isConstant(e) || isVariable(e);
  // A literal, a parameter, or a list or map of them (a leading sign allowed).
  function isConstant(e: Tree): boolean {
    const ok = (t: Tree): boolean => {
      if (t.symbol) return true;
      const r = rule(t)!;
      if (/^expression\d*$/.test(r)) {
        const cs = kids(t).filter((c) => !c.symbol);
        const signs = kids(t).filter((c) => c.symbol);
        if (cs.length !== 1) return false;
        if (signs.length > 0 && !(r === 'expression3' && signs.every((s) => s.symbol!.text === '-' || s.symbol!.text === '+')))
          return false;
        return ok(cs[0]!);
      }
      if (!CONSTANT_RULES.has(r)) return false;
      return kids(t).every(ok);
    };
    return ok(e);
  }
  const containsRule = (t: Tree, name: string): boolean => kids(t).some((c) => !c.symbol && (rule(c) === name || containsRule(c, name)));

  // The names a part reads that the surrounding query bound (comprehension and reduce variables
  // are the part's own, and hide an outer name of the same spelling).
  function referenced(t: Tree, scope: Scope, locals: Set<string> = new Set(), out: Set<string> = new Set()): Set<string> {
    const r = rule(t);
    if (t.symbol) return out;
    if (r === 'variable') {
      const name = variableName(t);
      if (!locals.has(name) && scope.has(name)) out.add(name);
      return out;
    }
    const binders = binding(t);
    if (binders) {
      const { names, outside } = binders;
      for (const c of kids(t)) {
        if (c.symbol || names.has(c)) continue;
        referenced(c, scope, outside.has(c) ? locals : new Set([...locals, ...[...names].map(variableName)]), out);
      }
      return out;
    }
    for (const c of kids(t)) referenced(c, scope, locals, out);
    return out;
  }

  // A list comprehension, quantifier (all/any/none/single) or reduce: the variables it binds and
  // the children evaluated outside them (the list it iterates, reduce's start value).
  function binding(t: Tree): { names: Set<Tree>; outside: Set<Tree> } | undefined {
    const r = rule(t);
    if (r !== 'listComprehension' && r !== 'listItemsPredicate' && r !== 'reduceExpression') return undefined;
    const cs = kids(t);
    const names = new Set(cs.filter((c) => rule(c) === 'variable'));
    const outside = new Set<Tree>();
    cs.forEach((c, i) => {
      const prev = cs[i - 1];
      if (rule(c) === 'expression' && prev?.symbol && ['IN', '='].includes(prev.symbol.text?.toUpperCase() ?? '')) outside.add(c);
    });
    return { names, outside };
  }

  // Subqueries and patterns inside an expression: their own conditions are guarded the same way.
  function nested(t: Tree, scope: Scope): void {
    if (t.symbol) return;
    const r = rule(t);
    if (r === 'existsExpression' || r === 'countExpression' || r === 'collectExpression') {
      const q = innerQuery(t);
      if (q) {
        walkRegular(q, new Map(scope));
        return;
      }
      const patterns = child(t, rules, 'patternList');
      const inner: Scope = new Map(scope);
      if (patterns) {
        declarePatterns(patterns, inner, false);
        patternSites(patterns, inner);
      }
      const where = child(t, rules, 'whereClause');
      if (where) predicate(child(where, rules, 'expression')!, inner);
      return;
    }
    if (r === 'patternComprehension') {
      const inner: Scope = new Map(scope);
      const pathVar = kids(t).find((c) => rule(c) === 'variable');
      if (pathVar) inner.set(variableName(pathVar), 'path');
      const path = child(t, rules, 'pathPatternNonEmpty')!;
      declarePatterns(path, inner, false);
      patternSites(path, inner);
      const exprs = childrenOf(t, rules, 'expression');
      const hasWhere = hasToken(t, 'WHERE');
      exprs.forEach((e, i) => (hasWhere && i === 0 ? predicate(e, inner) : nested(e, inner)));
      return;
    }
    if (r === 'patternExpression' || r === 'shortestPathExpression') {
      const inner: Scope = new Map(scope);
      declarePatterns(t, inner, false);
      patternSites(t, inner);
      return;
    }
    const binders = binding(t);
    if (binders) {
      // The comprehension's own variables hide outer ones: they hold computed values.
      const inner: Scope = new Map(scope);
      for (const v of binders.names) inner.set(variableName(v), null);
      for (const c of kids(t)) if (!binders.names.has(c)) nested(c, binders.outside.has(c) ? scope : inner);
      return;
    }
    for (const c of kids(t)) nested(c, scope);
  }

  const top = find(root, 'regularQuery');
  if (top) walkRegular(top, new Map());
  return edits;
}
