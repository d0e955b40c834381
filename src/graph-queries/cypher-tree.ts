// The parse tree of analysts' Cypher as the guard reads it (antlr4ng's contexts and tokens from
// @neo4j-cypher/language-support), and the refusal the guard answers with. Shared by the guard
// (cypher-guard.ts), its bounds (guard-bounds.ts) and its scope-first rewrite (scope-first.ts).
import { AppError } from '../errors.js';

export interface Token {
  text?: string;
  type: number;
  channel: number;
  start: number;
  stop: number;
  line: number;
  column: number;
}
export interface Tree {
  symbol?: Token;
  ruleIndex?: number;
  children?: Tree[] | null;
  start?: Token | null;
  stop?: Token | null;
}

export interface Refusal {
  reason: string;
  line: number;
  column: number;
}

export const refused = (reason: string, at: { line: number; column: number }): AppError =>
  new AppError('invalid_request', `Refused: ${reason} (line ${at.line}, column ${at.column}).`, {
    refusal: { reason, line: at.line, column: at.column },
  });

export const tokenAt = (t: Token | null | undefined) => ({ line: t?.line ?? 1, column: (t?.column ?? 0) + 1 });

// A name as Neo4j reads it: backticks off, doubled backticks single.
export const unescape = (name: string): string =>
  name.startsWith('`') && name.endsWith('`') ? name.slice(1, -1).replace(/``/g, '`') : name;

// A name as Cypher text, whatever it holds.
export const quoteName = (name: string): string => `\`${name.replace(/`/g, '``')}\``;

export function textOf(tree: Tree): string {
  if (tree.symbol) return tree.symbol.text ?? '';
  return (tree.children ?? []).map(textOf).join('');
}

export const kids = (tree: Tree): Tree[] => tree.children ?? [];

// The rule of a tree (a token has none).
export const ruleOf = (tree: Tree, rules: string[]): string | undefined => (tree.symbol ? undefined : rules[tree.ruleIndex ?? -1]);

export const child = (tree: Tree, rules: string[], rule: string): Tree | undefined => kids(tree).find((c) => ruleOf(c, rules) === rule);
export const childrenOf = (tree: Tree, rules: string[], rule: string): Tree[] => kids(tree).filter((c) => ruleOf(c, rules) === rule);
export const hasToken = (tree: Tree, text: string): boolean => kids(tree).some((c) => c.symbol?.text?.toUpperCase() === text);

// Down a chain of rules with one child each (expression > expression11 > … > literal).
export function collapse(tree: Tree): Tree {
  let t = tree;
  while (!t.symbol && kids(t).length === 1 && !kids(t)[0]!.symbol) t = kids(t)[0]!;
  return t;
}

// The name a `variable` (or any name) spells.
export function* collectNames(tree: Tree, rules: string[]): Generator<string> {
  const rule = ruleOf(tree, rules);
  if (rule === 'symbolicNameString' || rule === 'symbolicVariableNameString') {
    yield unescape(textOf(tree));
    return;
  }
  for (const c of kids(tree)) if (!c.symbol) yield* collectNames(c, rules);
}

export const variableName = (tree: Tree): string => unescape(textOf(tree));
