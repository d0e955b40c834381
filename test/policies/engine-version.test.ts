// The engine version stored with each decision must change whenever the engine's code does, or
// a replay could not tell which engine judged. This fingerprints src/engine/ (comments and
// layout aside) and compares it with the one recorded beside ENGINE_VERSION.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect } from 'chai';
import { ENGINE_FINGERPRINT, ENGINE_VERSION } from '../../src/engine/engine-version.js';

const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

export function engineFingerprint(): string {
  const printer = ts.createPrinter({ removeComments: true });
  const hash = createHash('sha256');
  for (const file of walk('src/engine')
    .filter((f) => f.endsWith('.ts') && !f.endsWith('engine-version.ts'))
    .sort()) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
    hash.update(`${file.split(path.sep).join('/')}\n${printer.printFile(source)}\n`);
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
