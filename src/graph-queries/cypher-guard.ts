// The guard on analysts' own Cypher (docs/graph.md). On Community Edition one database holds every
// tenant, so a statement stays inside its scope only through its text. The guard parses the text
// with Neo4j's own Cypher grammar (@neo4j-cypher/language-support), accepts only the rules and
// functions of guard-allowlist.ts, and rewrites every node pattern, wherever it stands (MATCH,
// pattern comprehensions and expressions, EXISTS/COUNT/COLLECT, CALL subqueries, quantified paths,
// shortestPath), to carry `tenantId: $tenantId, mode: $mode`, parameters the server sets. Every
// node a query binds is then in the analyst's scope, and so is every relationship between them,
// because no relationship crosses scopes (checked by `doorman graph check`). No I/O.
import { AppError } from '../errors.js';
import { ALLOWED_FUNCTIONS, ALLOWED_RULES, REFUSED_RULES, SCOPE_PARAMETERS } from './guard-allowlist.js';
import { checkParameters, checkRanges, checkStatementSize, GUARD_BOUNDS, measureStatement } from './guard-bounds.js';
import { collectNames, refused, textOf, tokenAt, unescape, type Refusal, type Token, type Tree } from './cypher-tree.js';
import { scopeFirst } from './scope-first.js';

export type { Refusal } from './cypher-tree.js';

interface ParsedStatement {
  parser: { ruleNames: string[]; numberOfSyntaxErrors: number };
  errorTracker?: { caughtExceptions?: Map<unknown, { offendingToken?: Token | null }> };
  tokens: Token[];
  ctx: Tree;
  syntaxErrors: { message: string; offsets: { start: number } }[];
}

export const MAX_CYPHER_LENGTH = GUARD_BOUNDS.characters;

export interface GuardedCypher {
  // What runs: comments blanked, every node pattern scoped, every condition scope first.
  text: string;
  // The analyst's own parameters the statement uses ($tenantId and $mode are the server's).
  parameters: string[];
  scopedNodePatterns: number;
  // Where a character of `text` came from in the analyst's text (line and column from 1), for
  // Neo4j's errors.
  positionOf(offset: number): { line: number; column: number };
}

export function refusalOf(err: unknown): Refusal | undefined {
  return err instanceof AppError ? (err.details?.refusal as Refusal | undefined) : undefined;
}

// Line and column (both from 1) of a character offset.
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

const isComment = (t: Token) => t.channel !== 0 && /^(\/\/|\/\*)/.test(t.text ?? '');
const isEnd = (t: Token) => t.text === '<EOF>' || t.type === -1;

type Parse = (text: string) => ParsedStatement[];
// The parser is loaded by the first statement guarded, not at start-up: it costs a process
// 130 MB or more and 0.6 s, which a server that only judges verdicts should not pay. One service,
// reused: it caches the last parse only, which a guard never asks for twice. `parse` is a public
// method of the class at run time; its type is private in the package's declarations, and the
// parse tree is what the guard needs.
let parser: Promise<Parse> | undefined;
const loadParser = (): Promise<Parse> =>
  (parser ??= import('@neo4j-cypher/language-support').then(({ CypherLanguageService }) => {
    const service = new CypherLanguageService({ consoleCommandsEnabled: false }) as unknown as {
      parse(q: string): { statementsParsing: ParsedStatement[] };
    };
    return (text: string) => service.parse(text).statementsParsing;
  }));

export async function guardCypher(text: string, given: Record<string, unknown> = {}): Promise<GuardedCypher> {
  const parseStatements = await loadParser();
  if (text.length > MAX_CYPHER_LENGTH)
    throw refused(`a statement longer than ${MAX_CYPHER_LENGTH} characters (the bound on its length)`, { line: 1, column: 1 });
  // Neo4j 5 decodes \uXXXX before it parses (even outside strings), so the text it runs could
  // differ from the text checked here: refused, whatever it spells.
  const escape = /\\u/i.exec(text);
  if (escape) throw refused('a \\u escape (Neo4j decodes it before parsing; type the character itself)', position(text, escape.index));
  for (const name of SCOPE_PARAMETERS) {
    if (Object.hasOwn(given, name)) throw refused(`the parameter $${name} (the server sets it from your session)`, { line: 1, column: 1 });
  }
  checkParameters(given);
  if (text.trim() === '') throw refused('an empty statement', { line: 1, column: 1 });

  let statements: ParsedStatement[];
  try {
    statements = parseStatements(text).filter((s) => s.tokens.some((t) => t.channel === 0 && !isEnd(t) && t.text !== ';'));
  } catch (err) {
    if (err instanceof RangeError) throw refused('a statement nested too deeply', { line: 1, column: 1 });
    throw err;
  }
  if (statements.length === 0) throw refused('an empty statement', { line: 1, column: 1 });
  if (statements.length > 1)
    throw refused('several statements (send one at a time)', tokenAt(statements[1]!.tokens.find((t) => t.channel === 0)));
  const statement = statements[0]!;
  const error = statement.syntaxErrors[0];
  if (error) throw refused(`a syntax error: ${error.message}`, position(text, error.offsets.start));
  if (statement.parser.numberOfSyntaxErrors > 0) {
    const [caught] = statement.errorTracker?.caughtExceptions?.values() ?? [];
    const token = caught?.offendingToken;
    throw refused(
      token && !isEnd(token) ? `a syntax error near "${token.text}"` : 'an incomplete statement',
      token && !isEnd(token) ? tokenAt(token) : position(text, text.trimEnd().length),
    );
  }

  const rules = statement.parser.ruleNames;
  checkStatementSize(measureStatement(statement.ctx, rules, statement.tokens));
  checkRanges(statement.ctx, rules, given);
  const before = new Map<number, string>();
  const after = new Map<number, string>();
  const parameters = new Set<string>();
  let scopedNodePatterns = 0;

  const visit = (tree: Tree): void => {
    // An error node is text the parser could not place: nothing unclassified runs.
    if (tree.symbol) {
      if (tree.constructor.name === 'ErrorNode')
        throw refused(`text the parser could not classify ("${tree.symbol.text}")`, tokenAt(tree.symbol));
      return;
    }
    const rule = rules[tree.ruleIndex ?? -1] ?? '?';
    const children = tree.children ?? [];
    if (rule === 'callClause') {
      const name = children.find((c) => rules[c.ruleIndex ?? -1] === 'procedureName');
      throw refused(`the procedure ${name ? [...collectNames(name, rules)].join('.') : '?'} (procedure calls)`, tokenAt(tree.start));
    }
    if (!ALLOWED_RULES.has(rule)) throw refused(REFUSED_RULES[rule] ?? `the construct "${rule}"`, tokenAt(tree.start));
    if (rule === 'nextStatement' && children.length > 1) throw refused('NEXT', tokenAt(children[1]!.symbol));
    if (rule === 'functionInvocation') {
      const name = children.find((c) => rules[c.ruleIndex ?? -1] === 'functionName')!;
      const spelled = [...collectNames(name, rules)].join('.');
      if (!ALLOWED_FUNCTIONS.has(spelled.toLowerCase())) throw refused(`the function ${spelled}`, tokenAt(tree.start));
    }
    if (rule === 'parameter') parameters.add(unescape(textOf(tree).slice(1)));
    if (rule === 'nodePattern') {
      scopeNodePattern(tree, rules, before, after);
      scopedNodePatterns++;
    }
    children.forEach(visit);
  };
  try {
    visit(statement.ctx);
  } catch (err) {
    if (err instanceof RangeError) throw refused('a statement nested too deeply', { line: 1, column: 1 });
    throw err;
  }

  let edits;
  try {
    edits = scopeFirst(statement.ctx, rules);
  } catch (err) {
    if (err instanceof RangeError) throw refused('a statement nested too deeply', { line: 1, column: 1 });
    throw err;
  }

  // Rebuilt token by token: comments become a space, so nothing the parser skipped reaches Neo4j.
  let out = '';
  const origins: { at: number; line: number; column: number }[] = [];
  for (const t of statement.tokens) {
    if (isEnd(t)) continue;
    out += (edits.prefix.get(t.start) ?? '') + (before.get(t.start) ?? '');
    origins.push({ at: out.length, ...tokenAt(t) });
    out += (isComment(t) ? ' ' : (t.text ?? '')) + (after.get(t.start) ?? '') + (edits.suffix.get(t.start) ?? '');
  }
  const lead = out.length - out.trimStart().length;
  out = out.trim().replace(/;$/, '');
  const positionOf = (offset: number) => {
    const at = offset + lead;
    let found = origins[0] ?? { line: 1, column: 1 };
    for (const o of origins) {
      if (o.at > at) break;
      found = o;
    }
    return { line: found.line, column: found.column };
  };
  const server = new Set<string>(SCOPE_PARAMETERS);
  return { text: out, parameters: [...parameters].filter((p) => !server.has(p)).sort(), scopedNodePatterns, positionOf };
}

const SCOPE_MAP = SCOPE_PARAMETERS.map((p) => `${p}: $${p}`).join(', ');

// `(n:Label {k: v} WHERE …)` becomes `(n:Label {tenantId: $tenantId, mode: $mode, k: v} WHERE …)`;
// a pattern without a map gets one before its WHERE or closing parenthesis.
function scopeNodePattern(node: Tree, rules: string[], before: Map<number, string>, after: Map<number, string>): void {
  const children = node.children ?? [];
  const properties = children.find((c) => rules[c.ruleIndex ?? -1] === 'properties');
  if (!properties) {
    const anchor = children.find((c) => c.symbol && (c.symbol.text?.toUpperCase() === 'WHERE' || c.symbol.text === ')'))!.symbol!;
    before.set(anchor.start, `${before.get(anchor.start) ?? ''} {${SCOPE_MAP}} `);
    return;
  }
  const map = (properties.children ?? []).find((c) => rules[c.ruleIndex ?? -1] === 'map');
  if (!map) throw refused("a parameter as a node's whole property map (write {key: $value})", tokenAt(properties.start));
  const keys = (map.children ?? []).filter((c) => rules[c.ruleIndex ?? -1] === 'propertyKeyName');
  for (const key of keys) {
    const name = unescape(textOf(key));
    if ((SCOPE_PARAMETERS as readonly string[]).includes(name))
      throw refused(`${name} in a pattern (the server sets the scope)`, tokenAt(key.start));
  }
  const open = map.children![0]!.symbol!;
  after.set(open.start, `${SCOPE_MAP}${keys.length > 0 ? ', ' : ''}`);
}
