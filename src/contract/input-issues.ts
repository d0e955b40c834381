// What no request value may hold, wherever it appears (bodies, query strings, path ids): a NUL
// character, a lone UTF-16 surrogate, or JSON nested deeper than MAX_JSON_DEPTH. Decided here
// once, so every route rejects them the same way, before anything reaches a store.
import type { ValidationIssue } from './request-validator.js';

// Objects and arrays inside objects and arrays: the body itself is level 1. Our own schemas
// need 3; `context` and device `components` are free-form, and 32 leaves them room.
export const MAX_JSON_DEPTH = 32;

// A high surrogate not followed by a low one, or a low one not preceded by a high one (code units).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Postgres text and jsonb cannot hold U+0000, and a lone surrogate has no UTF-8 form: it would
// be stored as U+FFFD, so the stored value would differ from the one sent.
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain an unpaired UTF-16 surrogate';
  return undefined;
}

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

// Walks the value without recursion (a 64 KiB body can nest tens of thousands of levels), and
// reports one issue per offending string or key, and one for the first level past the limit.
export function inputIssues(value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  let tooDeep = false;
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) issues.push({ path, message: problem });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > MAX_JSON_DEPTH) {
      if (!tooDeep) issues.push({ path, message: `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays` });
      tooDeep = true;
      continue;
    }
    const entries = Array.isArray(current) ? current.map((item, i) => [String(i), item] as const) : Object.entries(current);
    for (const [key, item] of entries.reverse()) {
      const itemPath = `${path}/${escapePointer(key)}`;
      const keyProblem = Array.isArray(current) ? undefined : textProblem(key);
      if (keyProblem) issues.push({ path: itemPath, message: `key ${keyProblem}` });
      stack.push({ value: item, path: itemPath, depth: depth + 1 });
    }
  }
  return issues;
}
