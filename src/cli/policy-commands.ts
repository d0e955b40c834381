// `doorman policy …`: policies as code (docs/policies.md). Show, export, validate and publish
// documents; history; replay and explain stored decisions; backtest candidates; shadow runs. The
// work is in src/policies/, loaded when a command runs.
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { backtestCommand, backtestResultCommand } from './backtest-command.js';
import { dateOption as date, modeOption, readDocument, scoped, scopeOf, type CliKit, type ScopeOptions as ScopeOpts } from './cli-kit.js';

type DocumentOpts = Partial<ScopeOpts> & { version?: string };
type ReplayOpts = Partial<ScopeOpts> & { policy?: string; all?: boolean; from?: string; to?: string };
type ShadowReportOpts = ScopeOpts & { policy?: string; from?: string; to?: string; cursor?: string; limit: number };

async function documentFor(deps: Pick<Deps, 'db'>, o: DocumentOpts) {
  const [{ toDocument }, { defaultPolicy }, { shippedPolicy }] = await Promise.all([
    import('../policies/documents/policy-document.js'),
    import('../engine/policy.js'),
    import('../policies/documents/shipped-policies.js'),
  ]);
  if (o.tenant && o.mode) {
    const [{ resolvePolicy }, { versionsInForce }] = await Promise.all([
      import('../policies/documents/resolve-policy.js'),
      import('../policies/documents/policy-store.js'),
    ]);
    const scope = await scopeOf(deps, o as ScopeOpts);
    if (o.version) return resolvePolicy(deps.db, scope, o.version);
    const [inForce] = await versionsInForce(deps.db, scope);
    return inForce
      ? { document: inForce.document, source: 'published' as const }
      : { document: toDocument(defaultPolicy), source: 'shipped' as const };
  }
  if (o.tenant || o.mode) {
    throw AppError.invalid([{ path: o.tenant ? 'mode' : 'tenant', message: `is required with --${o.tenant ? 'tenant' : 'mode'}` }]);
  }
  const shipped = o.version === undefined ? defaultPolicy : shippedPolicy(o.version);
  if (!shipped) throw new AppError('not_found', `No shipped policy version ${o.version}; name a tenant and mode for a published one.`);
  return { document: toDocument(shipped), source: 'shipped' as const };
}

// The options naming a document: a scope's (or, without one, the shipped default), and a version.
const documentOptions = (cmd: Command) =>
  cmd
    .option('--tenant <id>', 'tenant id (without it: the shipped default)')
    .addOption(modeOption())
    .option('--version <version>', 'a published or shipped version');

// `doorman policy` and its groups of subcommands, in the order `--help` lists them.
export function registerPolicyCommands(program: Command, kit: CliKit): void {
  const policy = program.command('policy').description('policies as code: documents, versions, replay, backtests, shadows');
  registerDocumentCommands(policy, kit);
  registerVersionCommands(policy, kit);
  registerReplayCommands(policy, kit);
  backtestCommand(policy, kit);
  backtestResultCommand(policy, kit);
  registerShadowCommands(policy, kit);
}

// schema, show, export, validate: policy documents, read and checked.
function registerDocumentCommands(policy: Command, kit: CliKit): void {
  const { withDeps, print } = kit;
  policy
    .command('schema')
    .description('print the JSON Schema of policy documents')
    .action(async () => {
      const { policySchema } = await import('../policies/documents/policy-schema.js');
      process.stdout.write(`${JSON.stringify(policySchema, null, 2)}\n`);
    });

  documentOptions(policy.command('show').description('the policy document in force (or that version)')).action(
    withDeps(['db'], async (deps, o: DocumentOpts) => {
      const { document } = await documentFor(deps, o);
      const title = `# policy ${document.version}${o.tenant ? ` for ${o.tenant} (${o.mode})` : ' (shipped default)'}`;
      print(document, `${title}\n${JSON.stringify(document, null, 2)}`);
    }),
  );

  documentOptions(policy.command('export').description('write the document in force (or that version) for editing, as indented JSON'))
    .option('--out <file>', 'write to this file instead of stdout')
    .action(
      withDeps(['db'], async (deps, o: DocumentOpts & { out?: string }) => {
        const { document } = await documentFor(deps, o);
        const pretty = `${JSON.stringify(document, null, 2)}\n`;
        if (!o.out) {
          process.stdout.write(kit.isJson() ? `${JSON.stringify(document)}\n` : pretty);
          return;
        }
        fs.writeFileSync(o.out, pretty);
        print({ ok: true, file: o.out, policy_version: document.version }, `Wrote policy ${document.version} to ${o.out}.`);
      }),
    );

  policy
    .command('validate <file>')
    .description('check a policy document; lists every problem')
    .action(
      withDeps([], async (_deps, file: string) => {
        const { validatePolicyDocument } = await import('../policies/documents/validate-policy.js');
        const checked = validatePolicyDocument(readDocument(file));
        if (checked.ok) {
          print({ ok: true }, `${file}: valid.`);
          return;
        }
        if (kit.isJson()) process.stdout.write(`${JSON.stringify({ ok: false, issues: checked.issues })}\n`);
        else process.stderr.write(checked.issues.map((i) => `${file}${i.path}: ${i.message}`).join('\n') + '\n');
        throw AppError.invalid(checked.issues, `${checked.issues.length} problem(s) in ${file}.`);
      }),
    );
}

// publish, history: the scope's immutable versions.
function registerVersionCommands(policy: Command, kit: CliKit): void {
  const { withDeps, print } = kit;
  scoped(policy.command('publish <file>').description('publish a document as a new immutable version'))
    .option('--note <text>', 'why')
    .action(
      withDeps(['db', 'clock'], async (deps, file: string, o: ScopeOpts & { note?: string }) => {
        const { publishPolicy } = await import('../policies/documents/publish-policy.js');
        const version = await publishPolicy(deps, await scopeOf(deps, o), { document: readDocument(file), note: o.note });
        print(
          { policy_version: version },
          `Published ${version} for ${o.tenant} (${o.mode}); every instance picks it up without a restart.`,
        );
      }),
    );

  scoped(policy.command('history').description('every published version of a scope, newest first')).action(
    withDeps(['db'], async (deps, o: ScopeOpts) => {
      const [{ listPolicyVersions, shadowsInForce }, { defaultPolicy }] = await Promise.all([
        import('../policies/documents/policy-store.js'),
        import('../engine/policy.js'),
      ]);
      const scope = await scopeOf(deps, o);
      const [versions, shadows] = await Promise.all([listPolicyVersions(deps.db, scope), shadowsInForce(deps.db, scope)]);
      const rows = versions.map((v, i) => ({
        policy_version: v.version,
        published_at: v.publishedAt.toISOString(),
        note: v.note ?? null,
        in_force: i === 0,
        shadow: shadows[0]?.version === v.version,
      }));
      const line = (r: (typeof rows)[number]) =>
        `${r.policy_version.padEnd(14)} ${r.published_at}` +
        `${r.in_force ? '  in force' : ''}${r.shadow ? '  shadow' : ''}${r.note ? `  ${r.note}` : ''}`;
      print(
        { versions: rows, default: defaultPolicy.version },
        rows.length === 0 ? `No publications: the shipped default ${defaultPolicy.version} is in force.` : rows.map(line).join('\n'),
      );
    }),
  );
}

// replay, explain: stored decisions evaluated again.
function registerReplayCommands(policy: Command, kit: CliKit): void {
  const { withDeps, print } = kit;
  policy
    .command('replay [event_id]')
    .description('re-evaluate a stored decision (or, with --all, every one) from its signals')
    .option('--tenant <id>', 'tenant id')
    .addOption(modeOption())
    .option('--policy <version>', "replay under this version instead of the event's own")
    .option('--all', 'the pre-deploy check: every stored decision (of the scope, if given) under its own policy')
    .option('--from <time>', 'with --all: events judged at or after')
    .option('--to <time>', 'with --all: events judged before')
    .action(
      withDeps(['db'], async (deps, eventId: string | undefined, o: ReplayOpts) => {
        if (o.all) {
          const { replayAll } = await import('../policies/replay/replay-all.js');
          const scope = o.tenant && o.mode ? await scopeOf(deps, o as ScopeOpts) : undefined;
          if (!scope && o.tenant) await scopeOf(deps, { tenant: o.tenant, mode: 'live' }); // the tenant must exist, in either mode
          const tenantIds = !scope && o.tenant ? [o.tenant] : undefined;
          const check = await replayAll(deps, { scope, tenantIds, from: date('from', o.from), to: date('to', o.to) });
          print(
            check,
            `Replayed ${check.events} decisions with engine ${check.engine_version}: ${check.same} the same, ` +
              `${check.different} different (${check.different_other_engine} judged by another engine version), ` +
              `${check.unknown_policy} with an unknown policy version.`,
          );
          if (check.different > check.different_other_engine) process.exitCode = 1;
          return;
        }
        if (!eventId || !o.tenant || !o.mode) {
          throw AppError.invalid([{ path: 'event_id', message: 'EVENT_ID, --tenant and --mode are required (or --all)' }]);
        }
        const { replayEvent } = await import('../policies/replay/replay-event.js');
        const r = await replayEvent(deps, await scopeOf(deps, o as ScopeOpts), eventId, o.policy);
        print(
          r,
          [
            `${r.event_id}: stored ${r.stored.verdict} (policy ${r.stored_policy_version}, engine ${r.engine_version.stored ?? 'unrecorded'}); ` +
              `replayed ${r.replayed.verdict} (policy ${r.policy_version}, engine ${r.engine_version.current}).`,
            r.same ? 'Same decision.' : `Differences:\n${r.differences.map((d) => `  ${JSON.stringify(d)}`).join('\n')}`,
          ].join('\n'),
        );
      }),
    );

  scoped(policy.command('explain <event_id>').description('why a decision was made, and the single change that would have made it milder'))
    .option('--policy <version>', 'explain under this version')
    .action(
      withDeps(['db'], async (deps, eventId: string, o: ScopeOpts & { policy?: string }) => {
        const { explainEvent, explanationText } = await import('../policies/replay/explain-event.js');
        const e = await explainEvent(deps, await scopeOf(deps, o), eventId, o.policy);
        print(e, explanationText(e));
      }),
    );
}

// shadow set and clear, shadow-report: a published version evaluated beside the live one.
function registerShadowCommands(policy: Command, kit: CliKit): void {
  const { withDeps, print } = kit;
  const shadow = policy.command('shadow').description('the shadow policy of a scope');
  scoped(shadow.command('set <version>').description('evaluate this published version beside the live one on every verdict')).action(
    withDeps(['db'], async (deps, version: string, o: ScopeOpts) => {
      const { setShadow } = await import('../policies/shadows/shadow-policy.js');
      await setShadow(deps, await scopeOf(deps, o), version);
      print({ ok: true, shadow: version }, `Shadowing ${version} for ${o.tenant} (${o.mode}).`);
    }),
  );
  scoped(shadow.command('clear').description('stop shadowing')).action(
    withDeps(['db'], async (deps, o: ScopeOpts) => {
      const { clearShadow } = await import('../policies/shadows/shadow-policy.js');
      await clearShadow(deps, await scopeOf(deps, o));
      print({ ok: true, shadow: null }, 'No shadow policy.');
    }),
  );

  scoped(policy.command('shadow-report').description('the shadow against live decisions, as a backtest over live traffic'))
    .option('--policy <version>', 'a shadow version (default: the current shadow)')
    .option('--from <time>')
    .option('--to <time>')
    .option('--cursor <cursor>', 'next page of flips')
    .option('--limit <n>', 'flips per page', (v) => Number(v), 50)
    .action(
      withDeps(['db'], async (deps, o: ShadowReportOpts) => {
        const { shadowReport } = await import('../policies/shadows/shadow-policy.js');
        const window = { from: date('from', o.from), to: date('to', o.to) };
        const r = await shadowReport(deps, await scopeOf(deps, o), { version: o.policy, ...window, cursor: o.cursor, limit: o.limit });
        print(r, `Shadow ${r.shadow_version}: ${r.events} decisions, ${r.flips.total} with another verdict.\n${JSON.stringify(r.matrix)}`);
      }),
    );
}
