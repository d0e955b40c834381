// The engine version stored with each decision must change whenever the engine's code does, or
// a replay could not tell which engine judged. This fingerprints src/engine/'s syntax trees and
// compares it with the one recorded beside ENGINE_VERSION. A tree leaves out what cannot change a
// decision: comments, layout, quotes, trailing commas and parentheses (which the tree's nesting
// already says), so formatting the code needs no new version.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect } from 'chai';
import { ENGINE_FINGERPRINT, ENGINE_VERSION } from '../../src/engine/engine-version.js';

const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

// A node as its kind and its children; a leaf as its kind and text (a string's value, not its quotes).
function shape(node: ts.Node, source: ts.SourceFile): string {
  if (ts.isParenthesizedExpression(node)) return shape(node.expression, source);
  if (ts.isParenthesizedTypeNode(node)) return shape(node.type, source);
  const children: string[] = [];
  ts.forEachChild(node, (child) => {
    children.push(shape(child, source));
  });
  if (children.length > 0) return `${node.kind}(${children.join(' ')})`;
  const text = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? JSON.stringify(node.text) : node.getText(source);
  return `${node.kind}:${text}`;
}

export function engineFingerprint(root = '.'): string {
  const hash = createHash('sha256');
  const dir = path.join(root, 'src', 'engine');
  for (const file of walk(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('engine-version.ts'))
    .sort()) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    hash.update(`${path.relative(root, file).split(path.sep).join('/')}\n${shape(source, source)}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

describe('engine version', () => {
  it('is a date and a counter', () => {
    expect(ENGINE_VERSION).to.match(/^\d{4}-\d{2}-\d{2}\.[1-9]\d*$/);
  });

  it('was bumped with the last change to the engine code', () => {
    const now = engineFingerprint();
    expect(
      ENGINE_FINGERPRINT,
      `src/engine/ changed: bump ENGINE_VERSION and set ENGINE_FINGERPRINT to '${now}' in src/engine/engine-version.ts`,
    ).to.equal(now);
  });
});
