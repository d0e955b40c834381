// `doorman erase`, `doorman graph rebuild` and `doorman retention run` (README, "The ops CLI"). CLI
// code only: the work is in src/lifecycle/, loaded when a command runs. Each starts a graph writer of its own while it waits,
// so it completes with no server running; with servers running, whichever process owns the
// scope's lane applies the work.
import os from 'node:os';
import type { Command } from 'commander';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import type { Subject } from '../lifecycle/erase-person.js';
import { scopeOf, scoped, type CliKit, type ScopeOptions } from './cli-kit.js';
import { addGraphCommands } from './graph-feedback-commands.js';
import { addGraphQueryCommands } from './graph-query-commands.js';

export function addLifecycleCommands(program: Command, kit: CliKit): void {
  const { print, withAllDeps } = kit;
  scoped(program.command('erase').description("erase a person's personal data in Postgres, Neo4j and Redis (GDPR Art. 17)"))
    .option('--external-user-id <id>', 'the person, by your user id')
    .option('--email <email>', 'the person, by email')
    .option('--by <who>', 'who asked for it, for the erasure log (default: the OS user)')
    .action(
      withAllDeps(async (deps: Deps, opts: ScopeOptions & { externalUserId?: string; email?: string; by?: string }) => {
        if (Boolean(opts.externalUserId) === Boolean(opts.email)) {
          throw AppError.invalid([{ path: 'subject', message: 'give exactly one of --external-user-id and --email' }]);
        }
        const { erasePerson } = await import('../lifecycle/erase-person.js');
        const subject: Subject = opts.externalUserId
          ? { kind: 'external_user_id', value: opts.externalUserId }
          : { kind: 'email', value: opts.email! };
        const scope = await scopeOf(deps, opts);
        await deps.graphWriter.start();
        const erased = await erasePerson(deps, scope, subject, { requestedBy: opts.by ?? os.userInfo().username });
        if (!erased.graph)
          throw new AppError(
            'internal',
            `Erasure ${erased.erasureId}: Postgres and Redis are erased; the graph part is queued but was not applied within 60 s. Run a graph writer (doorman serve or worker).`,
          );
        print(
          {
            ok: true,
            erased: { events: erased.events, accounts: erased.graph.accounts, identifiers: erased.graph.identifiers },
            erasure_id: erased.erasureId,
            webhook_deliveries: erased.webhookDeliveries,
            feedback: erased.feedback,
            list_entries: erased.listEntries,
            velocity_members: erased.velocityMembers,
          },
          `Erasure ${erased.erasureId}: ${erased.events} events cleared, ${erased.graph.accounts} accounts and ${erased.graph.identifiers} identifiers removed from the graph, ` +
            `${erased.webhookDeliveries} webhook payloads redacted, ${erased.feedback} feedback and ${erased.listEntries} list entries removed, ${erased.velocityMembers} velocity members removed.`,
        );
      }),
    );

  const graph = program.command('graph').description('the identity graph');
  addGraphCommands(graph, kit);
  addGraphQueryCommands(graph, kit);
  scoped(
    graph.command('rebuild').description("empty the scope's graph and replay its stored events, feedback and resolutions into it"),
  ).action(
    withAllDeps(async (deps: Deps, opts: ScopeOptions) => {
      const { rebuildGraph } = await import('../lifecycle/rebuild-graph.js');
      const scope = await scopeOf(deps, opts);
      await deps.graphWriter.start();
      const rebuilt = await rebuildGraph(deps, scope);
      print(
        { ok: true, events: rebuilt.events, marks: rebuilt.marks },
        `Graph of ${opts.tenant} (${opts.mode}) rebuilt from ${rebuilt.events} events and ${rebuilt.marks} outcomes.`,
      );
    }),
  );

  program
    .command('retention')
    .description('event retention (EVENT_RETENTION_DAYS)')
    .command('run')
    .description('remove events older than EVENT_RETENTION_DAYS now (the workers also run this hourly)')
    .action(
      withAllDeps(async (deps: Deps) => {
        const { applyRetention } = await import('../lifecycle/apply-retention.js');
        await deps.graphWriter.start();
        const r = await applyRetention(deps);
        print(
          {
            ok: true,
            cutoff: r.cutoff.toISOString(),
            events: r.events,
            feedback: r.feedback,
            batches: r.batches,
            complete: r.complete,
            failed_scopes: r.failedScopes,
          },
          `Removed ${r.events} events and ${r.feedback} feedback records judged before ${r.cutoff.toISOString()} in ${r.batches} batches${r.failedScopes ? `; ${r.failedScopes} scope(s) failed and were skipped (see the error log)` : ''}${r.complete || r.failedScopes ? '' : ' (stopped at the time budget; the rest goes next run)'}.`,
        );
      }),
    );
}
