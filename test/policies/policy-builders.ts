// Builders for policy tests: documents derived from the shipped default, and the CLI run as a
// user runs it (one JSON document on stdout with --json).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { defaultPolicy } from '../../src/engine/policy.js';
import { toDocument, type PolicyDocument, type RuleEntry } from '../../src/policies/documents/policy-document.js';
import { testEnv } from '../support/test-deps.js';

export function aDocument(rules: Record<string, Partial<RuleEntry>> = {}, extra: Partial<PolicyDocument> = {}): PolicyDocument {
  const doc = toDocument(defaultPolicy);
  delete doc.version;
  for (const [code, change] of Object.entries(rules)) doc.rules[code] = { ...doc.rules[code]!, ...change } as RuleEntry;
  return { ...doc, ...extra };
}

export function writeDocument(doc: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-policy-')), 'policy.json');
  fs.writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
  after(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
  return file;
}

export async function doorman(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', ['bin/doorman.js', ...args], {
      env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', LOG_LEVEL: 'warn' },
      timeout: 240_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

export async function doormanJson(...args: string[]): Promise<any> {
  const r = await doorman('--json', ...args);
  if (r.code !== 0) throw new Error(`doorman ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one JSON document on stdout, got ${lines.length} lines`);
  return JSON.parse(lines[0]!);
}
