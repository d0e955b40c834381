// The `doorman` ops CLI (README, "The ops CLI"). With --json every command prints exactly one
// JSON document on stdout and exits 0, or one line on stderr and exits non-zero.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadConfig, repoDir, type Config } from '../config.js';
import type { Deps } from '../deps.js';
import type { Logger } from 'pino';
import type { ListKind } from '../lists/list-values.js';
import { AppError } from '../errors.js';
import { addReviewAndWebhookCommands } from './review-webhook-commands.js';
import { addLifecycleCommands } from './lifecycle-commands.js';
import { addFeedbackCommands } from './graph-feedback-commands.js';
import { addIntelCommands } from './intel-commands.js';
import { addAnalystCommands } from './analyst-commands.js';
import { registerPolicyCommands } from './policy-commands.js';
import { modeOption, type CliKit, type Printer, type RunOptions, type WithAllDeps, type WithDeps } from './cli-kit.js';

// The list kinds commander offers: lists/list-values.ts's LIST_KINDS (test/cli-startup.test.ts
// holds the two equal), written out here so that registering the commands loads no list code.
const LIST_KINDS: readonly ListKind[] = ['email', 'email_domain', 'ip', 'device', 'card_fingerprint', 'external_user_id'];

// exitOverride before any command is added: commander copies it into each subcommand as it is
// made, so a usage error anywhere (a missing option of `key create`, not only an unknown command)
// ends at the bottom of this file, with status 2.
const program = new Command('doorman')
  .description('Doorman abuse screening: operations')
  .option('--json', 'print exactly one JSON document on stdout')
  .showHelpAfterError()
  .exitOverride();

function isJson(): boolean {
  return Boolean(program.opts().json);
}

const print: Printer = (json, human) => {
  process.stdout.write(isJson() ? `${JSON.stringify(json)}\n` : `${human}\n`);
};

// The configuration and the logger of a command that runs. A server logs to stdout; a one-shot
// command logs to stderr, quietly, beside its output.
async function setUp(options: RunOptions): Promise<{ config: Config; logger: Logger }> {
  const config = loadConfig();
  if (options.needsSecretsKey && config.secretsKeys.length === 0) {
    throw new ConfigError([
      'SECRETS_KEY is required: 32 random bytes in base64, kept outside the database (`doorman secrets new-key` prints one; `npm start` writes one into .env)',
    ]);
  }
  const { createLogger } = await import('../logger.js');
  const logger = options.keepOpen ? createLogger(config.logLevel) : createLogger(isJson() ? 'warn' : config.logLevel, true);
  return { config, logger };
}

// Runs a command with the parts of deps it names, always closing them; errors become one line on
// stderr. Nothing of a store is loaded before the action runs: `--help` and a usage error never
// get this far.
const withDeps: WithDeps =
  (parts, fn, options = {}) =>
  async (...args) => {
    const { config, logger } = await setUp(options);
    const { createPartialDeps } = await import('../partial-deps.js');
    const deps = await createPartialDeps(config, logger, parts);
    try {
      await fn(deps, ...args);
    } finally {
      await deps.close();
    }
  };

// The same with every client (createDeps). A command that seals or opens stored secrets as a
// matter of course (serve, worker, migrate) refuses to start without the master key, instead of
// failing at its first webhook or device token.
const withAllDeps: WithAllDeps =
  (fn, options = {}) =>
  async (...args) => {
    const { config, logger } = await setUp(options);
    const { createDeps } = await import('../deps.js');
    const deps: Deps = createDeps(config, { logger });
    try {
      await fn(deps, ...args);
    } finally {
      if (!options.keepOpen) await deps.close();
    }
  };

program
  .command('version')
  .description('this Doorman and the Node.js it runs on')
  .action(() => {
    const { version } = JSON.parse(readFileSync(path.join(repoDir, 'package.json'), 'utf8')) as { version: string };
    print({ doorman: version, node: process.version }, `doorman ${version} on Node.js ${process.version}`);
  });

program
  .command('migrate')
  .description('apply Postgres migrations and the Neo4j schema (idempotent)')
  .action(
    withAllDeps(
      async (deps) => {
        const [{ migrateJobQueue, migratePostgres }, { migrateGraph }, { sealPlainSecrets }] = await Promise.all([
          import('../db/migrate.js'),
          import('../graph/graph-schema.js'),
          import('../lifecycle/seal-stored-secrets.js'),
        ]);
        const applied = await migratePostgres(deps.config, deps.logger);
        await migrateJobQueue(deps.config.databaseDirectUrl, deps.logger);
        const statements = await migrateGraph(deps.graph, deps.cypher);
        // Secrets stored before sealing existed are sealed now (idempotent).
        const sealed = await sealPlainSecrets(deps);
        print(
          { ok: true },
          `Postgres: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}; Neo4j: ${statements} schema statements ensured${sealed ? `; ${sealed} stored secrets sealed` : ''}`,
        );
      },
      { needsSecretsKey: true },
    ),
  );

program
  .command('serve')
  .description('run the API and the graph writer (and the job workers unless --no-worker)')
  .option('--no-worker', 'do not run the job workers (webhook deliveries) in this process')
  .option('--no-graph-writer', 'leave the graph outbox to other processes (e.g. dedicated `doorman worker`s)')
  .action(
    withAllDeps(
      async (deps, opts: { worker: boolean; graphWriter: boolean }) => {
        const [{ serve }, { startWorkers }] = await Promise.all([import('../server.js'), import('../start-workers.js')]);
        let workers: { close(): Promise<void> } | undefined;
        await serve(deps, { stop: async () => workers?.close() }, { graphWriter: opts.graphWriter });
        if (opts.worker) workers = await startWorkers(deps);
      },
      { keepOpen: true, needsSecretsKey: true },
    ),
  );

program
  .command('worker')
  .description('run only the background work: the graph writer and the job workers')
  .action(
    withAllDeps(
      async (deps) => {
        const [{ onShutdown }, { startWorkers }, { startMetricsServer }] = await Promise.all([
          import('../server.js'),
          import('../start-workers.js'),
          import('../metrics/metrics-server.js'),
        ]);
        const metrics = await startMetricsServer(deps);
        await deps.graphWriter.start();
        const workers = await startWorkers(deps);
        // Said once the workers poll: supervisors and tests wait for this line.
        deps.logger.info({ pid: process.pid }, 'job workers started');
        // The current job finishes, the graph writer flushes, the pools close; then exit 0.
        onShutdown(deps, async () => {
          await workers.close();
          await deps.close();
          await metrics.close();
        });
      },
      { keepOpen: true, needsSecretsKey: true },
    ),
  );

const tenant = program.command('tenant').description('tenants');
tenant
  .command('create')
  .description('create a tenant and its four first keys (shown once)')
  .requiredOption('--name <name>', 'tenant name')
  .action(
    withDeps(['db'], async (deps, opts: { name: string }) => {
      const { createTenant } = await import('../tenants/manage-tenants.js');
      const { tenantId, keys } = await createTenant(deps.db, opts.name);
      print(
        { tenant_id: tenantId, keys },
        [
          `Tenant ${tenantId} (${opts.name}). Keys are shown once; store them now:`,
          ...Object.entries(keys).map(([k, v]) => `  ${k.padEnd(8)} ${v}`),
        ].join('\n'),
      );
    }),
  );

const key = program.command('key').description('API keys');
key
  .command('create')
  .description('mint a new key for a tenant (shown once)')
  .requiredOption('--tenant <id>', 'tenant id')
  .addOption(new Option('--kind <kind>', 'key kind').choices(['secret', 'publishable']).makeOptionMandatory())
  .addOption(modeOption().makeOptionMandatory())
  .action(
    withDeps(['db'], async (deps, opts: { tenant: string; kind: 'secret' | 'publishable'; mode: 'live' | 'test' }) => {
      const { createKey } = await import('../tenants/manage-tenants.js');
      const created = await createKey(deps.db, opts.tenant, opts.kind, opts.mode);
      print({ key: created }, `New ${opts.mode} ${opts.kind} key (shown once): ${created}`);
    }),
  );
key
  .command('revoke <key>')
  .description('revoke a key at once (401 from its next request on)')
  .action(
    withDeps(['db'], async (deps, raw: string) => {
      const { revokeApiKey } = await import('../tenants/manage-tenants.js');
      await revokeApiKey(deps.db, raw);
      print({ revoked: true }, 'Key revoked.');
    }),
  );

program
  .command('list <action>')
  .description('add to or remove from a tenant allow/block list (action: add | remove)')
  .requiredOption('--tenant <id>', 'tenant id')
  .addOption(modeOption().makeOptionMandatory())
  .addOption(new Option('--list <list>', 'which list').choices(['allow', 'block']).makeOptionMandatory())
  .addOption(new Option('--kind <kind>', 'identifier kind').choices([...LIST_KINDS]).makeOptionMandatory())
  .requiredOption('--value <value>', 'the identifier')
  .action(
    withDeps(
      ['db'],
      async (
        deps,
        action: string,
        opts: { tenant: string; mode: 'live' | 'test'; list: 'allow' | 'block'; kind: ListKind; value: string },
      ) => {
        if (action !== 'add' && action !== 'remove') throw AppError.invalid([{ path: 'action', message: 'must be add or remove' }]);
        const { changeList } = await import('../lists/manage-lists.js');
        await changeList(
          deps.db,
          { tenantId: opts.tenant, mode: opts.mode },
          { action, list: opts.list, kind: opts.kind, value: opts.value },
        );
        print(
          { ok: true },
          `${action === 'add' ? 'Added' : 'Removed'} ${opts.kind} ${opts.value} ${action === 'add' ? 'to' : 'from'} the ${opts.mode} ${opts.list} list.`,
        );
      },
    ),
  );

const kit: CliKit = { withDeps, withAllDeps, print, isJson };
addReviewAndWebhookCommands(program, kit);
addAnalystCommands(program, kit);
addLifecycleCommands(program, kit);
addFeedbackCommands(program, kit);
addIntelCommands(program, kit);
program
  .command('device')
  .description('device tokens')
  .command('rotate-key')
  .description('make a new current signing key; the previous one keeps verifying for DEVICE_TOKEN_TTL_SECONDS')
  .action(
    withDeps(['db', 'clock', 'vault'], async (deps) => {
      const { rotateDeviceKey } = await import('../devices/rotate-device-key.js');
      const { kid } = await rotateDeviceKey(deps);
      print(
        { kid },
        `New device-token signing key ${kid}; every instance signs with it from now on. The previous key verifies for ${deps.config.deviceTokenTtlSeconds} s more.`,
      );
    }),
  );
registerPolicyCommands(program, kit);
const secrets = program.command('secrets').description('the master key that seals stored secrets (SECRETS_KEY)');
secrets
  .command('new-key')
  .description('print a new random master key (32 bytes, base64) for SECRETS_KEY')
  .action(() => {
    const key = randomBytes(32).toString('base64');
    print({ key }, key);
  });
secrets
  .command('rotate-key')
  .description('re-wrap every data key under SECRETS_KEY (set the old key in SECRETS_PREVIOUS_KEYS everywhere first)')
  .action(
    withDeps(
      ['db', 'vault'],
      async (deps) => {
        const { rotateMasterKey } = await import('../lifecycle/seal-stored-secrets.js');
        const rotated = await rotateMasterKey(deps);
        print(
          { ok: true, secrets: rotated.secrets, data_keys: rotated.dataKeys, rewrapped: rotated.rewrapped },
          `${rotated.secrets} stored secrets are now under master key ${deps.vault.masters[0]!.kid} (${rotated.rewrapped} of ${rotated.dataKeys} data keys re-wrapped); SECRETS_PREVIOUS_KEYS can be emptied.`,
        );
      },
      { needsSecretsKey: true },
    ),
  );

function describe(err: unknown): string {
  if (err instanceof ConfigError) return err.message.replace(/\n\s*/g, ' ');
  if (err instanceof AppError) {
    const issues = (err.details?.issues as { path: string; message: string }[] | undefined) ?? [];
    return [err.message, ...issues.map((i) => `${i.path} ${i.message}`)].join(' ');
  }
  return err instanceof Error ? err.message : String(err);
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // commander has already printed the help or the usage error: help that was asked for exits 0
  // (`--help`, `help key`), a usage error 2 (an unknown command, a missing option, a bare `key`).
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  process.stderr.write(`doorman: ${describe(err).split('\n')[0]}\n`);
  process.exit(1);
}
