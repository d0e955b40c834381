// `doorman graph recluster|explain` and `doorman feedback list|retract` (README, "The ops CLI";
// docs/graph.md). CLI code only: the work is in src/lifecycle/, src/graph/ and src/feedback/, loaded
// when a command runs. recluster starts a graph writer of its own while it waits, so it completes with no server
// running; with servers running, whichever process owns the scope's lane applies it.
import type { Command } from 'commander';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { scopeOf, scoped, type CliKit, type ScopeOptions } from './cli-kit.js';

// Operators act from the CLI: the audit log names them so.
export const CLI_ACTOR = 'operator (doorman CLI)';

export function addGraphCommands(graph: Command, { print, withDeps, withAllDeps }: CliKit): void {
  scoped(graph.command('recluster').description("recompute the scope's clusters from its links under the tenant's link policy")).action(
    withAllDeps(async (deps: Deps, opts: ScopeOptions) => {
      const { reclusterGraph } = await import('../lifecycle/recluster-graph.js');
      const scope = await scopeOf(deps, opts);
      await deps.graphWriter.start();
      const r = await reclusterGraph(deps, scope);
      print(
        { ok: true, clusters_before: r.clustersBefore, clusters_after: r.clustersAfter, split: r.split, merged: r.merged },
        `Reclustered ${opts.tenant} (${opts.mode}): ${r.clustersBefore} clusters before, ${r.clustersAfter} after; ${r.split} split, ${r.merged} merged.`,
      );
    }),
  );

  scoped(graph.command('verify').description("compare the scope's graph with what Postgres says it must hold (exit 1 when they differ)"))
    .option('--repair', 'queue what differs through the outbox (audited), apply it with a graph writer of this command, and verify again')
    .option('--limit <n>', 'list at most this many differences (the rest are counted)', (v) => Number.parseInt(v, 10), 1000)
    .action(
      withAllDeps(async (deps: Deps, opts: ScopeOptions & { repair?: boolean; limit: number }) => {
        if (!Number.isInteger(opts.limit) || opts.limit < 0)
          throw AppError.invalid([{ path: 'limit', message: 'must be a whole number, 0 or more' }]);
        const [{ verifyGraph }, { pendingGraphOps }] = await Promise.all([
          import('../lifecycle/verify-graph.js'),
          import('../graph/graph-outbox-store.js'),
        ]);
        const scope = await scopeOf(deps, opts);
        let r = await verifyGraph(deps, scope, {
          limit: opts.limit,
          repair: opts.repair,
          actor: { ...scope, analystId: null, analystEmail: CLI_ACTOR },
        });
        let repaired: { queued: number; differences: number } | undefined;
        if (r.repaired) {
          repaired = { queued: r.repaired.queued, differences: r.differences.length + r.more };
          await deps.graphWriter.start();
          const deadline = Date.now() + 600_000;
          while ((await pendingGraphOps(deps.db, scope)) > 0) {
            if (Date.now() > deadline)
              throw new AppError(
                'internal',
                "The repair is queued but not yet applied: the scope's lane is held by a writer that does not drain it.",
              );
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          r = await verifyGraph(deps, scope, { limit: opts.limit });
        }
        const c = r.checked;
        print(
          { ok: r.ok, checked: c, differences: r.differences, more: r.more, ...(repaired ? { repaired } : {}) },
          [
            `${r.ok ? 'The graph holds what Postgres says' : 'The graph differs from Postgres'} for ${opts.tenant} (${opts.mode}): ${c.events} events, ${c.accounts} accounts, ${c.identifiers} identifiers, ${c.links} links, ${c.marks} standing marks, ${c.clusters} clusters checked.`,
            ...(repaired
              ? [`Repaired: ${repaired.differences} difference(s), ${repaired.queued} outbox row(s) applied; verified again below.`]
              : []),
            ...r.differences.map(
              (d) =>
                `  ${d.type} ${d.what} ${d.subject}${d.expected !== undefined ? ` expected ${JSON.stringify(d.expected)}` : ''}${d.found !== undefined ? ` found ${JSON.stringify(d.found)}` : ''}`,
            ),
            ...(r.more ? [`  … and ${r.more} more`] : []),
          ].join('\n'),
        );
        if (!r.ok) {
          process.stderr.write(
            `doorman: the graph of ${opts.tenant} (${opts.mode}) differs from Postgres in ${r.differences.length + r.more} place(s)\n`,
          );
          process.exitCode = 1;
        }
      }),
    );

  scoped(graph.command('explain <event_id>').description("the event's cluster and the evidence path of every mark on it")).action(
    withDeps(['db', 'graph', 'cypher'], async (deps, eventId: string, opts: ScopeOptions) => {
      const { explainCluster } = await import('../graph/explain-cluster.js');
      const scope = await scopeOf(deps, opts);
      const explained = await explainCluster(deps, scope, { eventId });
      // The operations table's shape (the path's and the subjects' node keys are the console's).
      const x = { ...explained, marks: explained.marks.map(({ path: _path, subject_key: _s, target_key: _t, ...m }) => m) };
      const lines = x.marks.map(
        (m) =>
          `  ${m.outcome} on ${m.subject_kind} at ${m.marked_at}, via ${m.via === null ? '(no live path)' : m.via.length ? m.via.join(' > ') : '(the account itself)'}${m.feedback_id ? ` [${m.feedback_id}]` : ''}`,
      );
      print(
        x,
        x.cluster
          ? [`Event ${eventId}: cluster ${x.cluster.id} (${x.cluster.accounts} accounts), ${x.marks.length} mark(s)`, ...lines].join('\n')
          : `Event ${eventId} is in no cluster.`,
      );
    }),
  );
}

export function addFeedbackCommands(program: Command, { print, withDeps }: CliKit): void {
  const feedback = program.command('feedback').description('reported outcomes (POST /v1/feedback) and their marks on the graph');
  scoped(feedback.command('list').description('recorded feedback, newest first (at most 100)'))
    .option('--external-user-id <id>', 'about this account')
    .option('--email <email>', 'about this email')
    .option('--event-id <id>', 'about this event')
    .action(
      withDeps(['db'], async (deps, opts: ScopeOptions & { externalUserId?: string; email?: string; eventId?: string }) => {
        if ([opts.externalUserId, opts.email, opts.eventId].filter((x) => x !== undefined).length > 1) {
          throw AppError.invalid([{ path: 'subject', message: 'give at most one of --external-user-id, --email and --event-id' }]);
        }
        const { listFeedback } = await import('../feedback/feedback-store.js');
        const scope = await scopeOf(deps, opts);
        const rows = await listFeedback(deps.db, scope, opts);
        print(
          { feedback: rows.map(({ retract_note: _n, note: _note, ...r }) => r) },
          rows.length === 0
            ? 'No feedback.'
            : rows
                .map(
                  (r) =>
                    `${r.feedback_id}  ${r.created_at}  ${r.outcome}  ${r.subject.kind}=${r.subject.value}${r.retracted_at ? `  (retracted ${r.retracted_at})` : ''}`,
                )
                .join('\n'),
        );
      }),
    );
  scoped(feedback.command('retract <feedback_id>').description('take a mark back; later verdicts no longer carry its reasons'))
    .requiredOption('--note <text>', 'why (recorded in the audit log)')
    .action(
      withDeps(['db', 'clock', 'graphOutbox'], async (deps, feedbackId: string, opts: ScopeOptions & { note: string }) => {
        if (opts.note.trim() === '' || opts.note.length > 2000)
          throw AppError.invalid([{ path: 'note', message: 'must be 1 to 2000 characters' }]);
        const { retractFeedback } = await import('../feedback/retract-feedback.js');
        const scope = await scopeOf(deps, opts);
        await retractFeedback(deps, scope, { feedbackId, note: opts.note, actor: { ...scope, analystId: null, analystEmail: CLI_ACTOR } });
        print({ ok: true }, `Retracted ${feedbackId}; the graph writer applies it in order with the scope's other marks.`);
      }),
    );
}
