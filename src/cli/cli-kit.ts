// What every `doorman` command file is handed and shares: running with deps and printing (one JSON
// document under --json), the scope options and their one check (an unknown tenant is not_found
// for every command alike), and the small readers of options (a date, a JSON file).
// Registering the commands must stay cheap (`doorman --help` loads this and the command files
// only): a command file imports its work, and any client, inside the action, with `import()`.
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import type { Deps } from '../deps.js';
import type { PartialDeps, PartName } from '../partial-deps.js';
import { AppError } from '../errors.js';
import type { Scope } from '../scope.js';

type Action = (...args: unknown[]) => Promise<void>;
// A command that seals or opens stored secrets as a matter of course, or tags a sign-in link under
// it, refuses to start without the master key (needsSecretsKey); a server keeps its deps open
// after the action returns (keepOpen).
export interface RunOptions {
  keepOpen?: boolean;
  needsSecretsKey?: boolean;
}
// Runs the action with only the named parts of Deps (src/partial-deps.ts), closed after it.
export type WithDeps = <K extends PartName>(
  parts: readonly K[],
  fn: (deps: PartialDeps<K>, ...args: any[]) => Promise<void>,
  options?: Pick<RunOptions, 'needsSecretsKey'>,
) => Action;
// Runs the action with every client (createDeps): serve, worker, migrate and the commands that
// start a graph writer of their own.
export type WithAllDeps = (fn: (deps: Deps, ...args: any[]) => Promise<void>, options?: RunOptions) => Action;
export type Printer = (json: unknown, human: string) => void;

export interface CliKit {
  withDeps: WithDeps;
  withAllDeps: WithAllDeps;
  print: Printer;
  isJson(): boolean;
}

export type ScopeOptions = { tenant: string; mode: 'live' | 'test' };

export const modeOption = () => new Option('--mode <mode>', 'mode').choices(['live', 'test']);

// Adds the required --tenant and --mode.
export const scoped = (cmd: Command) => cmd.requiredOption('--tenant <id>', 'tenant id').addOption(modeOption().makeOptionMandatory());

export async function scopeOf(deps: Pick<Deps, 'db'>, opts: ScopeOptions): Promise<Scope> {
  const { tenantExists } = await import('../tenants/key-store.js');
  if (!(await tenantExists(deps.db, opts.tenant))) throw new AppError('not_found', `No tenant ${opts.tenant}.`);
  return { tenantId: opts.tenant, mode: opts.mode };
}

export function dateOption(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw AppError.invalid([{ path: name, message: 'must be a date-time (RFC 3339)' }]);
  return d;
}

// A policy document from a file: unreadable or not JSON is a 4xx-style invalid_request.
export function readDocument(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw AppError.invalid([{ path: file, message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` }]);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw AppError.invalid([{ path: file, message: `is not JSON: ${(err as Error).message}` }], 'The policy document is invalid.');
  }
}
