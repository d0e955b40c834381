// Runs the ops CLI as a user runs it, from the TypeScript sources, against the test stores.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { testEnv } from './test-deps.js';

const run = promisify(execFile);

export async function doorman(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run('node', ['bin/doorman.js', ...args], {
      env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', LOG_LEVEL: 'warn', ...env },
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}
