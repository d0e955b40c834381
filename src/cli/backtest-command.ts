// `doorman policy backtest` and `backtest-result`: a candidate against stored decisions. Progress
// (events evaluated, rate, ETA) goes to stderr through cli-progress, on a terminal or with
// --progress; stdout keeps the one document under --json. The work, and cli-progress, are loaded
// when a command runs.
import fs from 'node:fs';
import { type Command } from 'commander';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import type { backtestReport } from '../policies/backtests/start-backtest.js';
import { modeOption, readDocument, scopeOf, type CliKit } from './cli-kit.js';

const VERSION = /^\d{4}-\d{2}-\d{2}\.[1-9]\d*$/;
const POLL_MS = 500;

interface Opts {
  tenant: string;
  mode: 'live' | 'test';
  from: string;
  to: string;
  eventType?: string;
  job?: boolean;
  inline?: boolean;
  detach?: boolean;
  progress?: boolean;
  limit: number;
  inlineMax?: number;
  waitSeconds: number;
}

async function progressBar(show: boolean) {
  if (!show) return undefined;
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 1000,
      format: 'backtest |{bar}| {value}/{total} events | {rate} events/s | ETA {eta_formatted}',
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let running = false;
  return {
    update(done: number, total: number) {
      const rate = Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
      if (!running) {
        bar.start(Math.max(total, done), done, { rate });
        running = true;
      } else {
        bar.setTotal(Math.max(total, done));
        bar.update(done, { rate });
      }
    },
    stop: () => running && bar.stop(),
  };
}

async function waitFor(
  deps: Pick<Deps, 'db'>,
  id: string,
  waitSeconds: number,
  onProgress: (done: number, total: number) => void,
): Promise<void> {
  const { findBacktest } = await import('../policies/backtests/backtest-store.js');
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    const bt = await findBacktest(deps.db, id);
    if (bt) onProgress(bt.eventsDone, bt.eventsTotal);
    if (bt?.status === 'done' || bt?.status === 'failed') return;
    if (Date.now() > deadline)
      throw new AppError(
        'internal',
        `Backtest ${id} is still ${bt?.status}; fetch it later with \`doorman policy backtest-result ${id}\`.`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function summary(r: Awaited<ReturnType<typeof backtestReport>>): string {
  const x = r as Record<string, any>;
  if (x.status !== 'done') return `Backtest ${r.backtest_id}: ${r.status}${x.error ? ` (${x.error})` : ''}.`;
  const m = x.matrix as Record<string, Record<string, number>>;
  const lines = [
    `Backtest ${r.backtest_id}: ${x.events} events, ${r.flips.total} flipped (${x.events_per_second} events/s).`,
    'stored \\ candidate   allow   review   block',
  ];
  for (const v of ['allow', 'review', 'block'])
    lines.push(`${v.padEnd(20)}${String(m[v]!.allow).padStart(6)}${String(m[v]!.review).padStart(9)}${String(m[v]!.block).padStart(8)}`);
  const codes = new Set([...Object.keys(x.codes.before), ...Object.keys(x.codes.after)]);
  for (const c of [...codes].sort()) {
    const [b, a] = [x.codes.before[c] ?? 0, x.codes.after[c] ?? 0];
    if (a !== b) lines.push(`  ${c}: ${b} → ${a}`);
  }
  lines.push(
    `abusive: ${x.labels.abusive.newly_caught} newly caught, ${x.labels.abusive.newly_missed} newly missed; good: ${x.labels.good.newly_reviewed} newly reviewed, ${x.labels.good.newly_blocked} newly blocked.`,
  );
  for (const w of x.warnings ?? []) lines.push(`warning: ${w}`);
  return lines.join('\n');
}

export function backtestCommand(policy: Command, kit: CliKit): void {
  policy
    .command('backtest <candidate>')
    .description('evaluate a candidate (FILE or VERSION) over stored decisions')
    .requiredOption('--tenant <id>', 'tenant id')
    .addOption(modeOption().makeOptionMandatory())
    .requiredOption('--from <time>', 'events judged at or after (RFC 3339)')
    .requiredOption('--to <time>', 'events judged before (RFC 3339)')
    .option('--event-type <type>', 'only this event type')
    .option('--job', 'run as a job on a worker, whatever the range')
    .option('--inline', 'run here, whatever the range')
    .option('--inline-max <n>', 'more events than this run as a job', (v) => Number(v))
    .option('--detach', 'with a job: print its id and return at once')
    .option('--progress', 'show progress on stderr even when it is not a terminal')
    .option('--limit <n>', 'flips shown', (v) => Number(v), 50)
    .option('--wait-seconds <n>', 'how long to wait for a job', (v) => Number(v), 3600)
    .action(
      kit.withDeps(['db', 'boss'], async (deps, candidate: string, o: Opts) => {
        const { backtestReport, startBacktest } = await import('../policies/backtests/start-backtest.js');
        const scope = await scopeOf(deps, o);
        const bar = await progressBar(Boolean(o.progress || process.stderr.isTTY));
        const onProgress = (done: number, total: number) => bar?.update(done, total);
        try {
          const cand =
            VERSION.test(candidate) && !fs.existsSync(candidate) ? { version: candidate } : { document: readDocument(candidate) };
          const started = await startBacktest(
            deps,
            scope,
            {
              candidate: cand,
              from: new Date(o.from),
              to: new Date(o.to),
              eventType: o.eventType,
              run: o.job ? 'job' : o.inline ? 'inline' : 'auto',
              inlineMax: o.inlineMax,
            },
            onProgress,
          );
          if (started.queued && o.detach) {
            kit.print(
              { backtest_id: started.backtestId, status: 'queued', events_total: started.eventsTotal },
              `Queued backtest ${started.backtestId} (${started.eventsTotal} events); fetch it with \`doorman policy backtest-result ${started.backtestId}\`.`,
            );
            return;
          }
          if (started.queued) {
            process.stderr.write(
              `doorman: ${started.eventsTotal} events: running as job ${started.backtestId} on a worker (doorman worker)\n`,
            );
            await waitFor(deps, started.backtestId, o.waitSeconds, onProgress);
          }
          bar?.stop();
          const report = await backtestReport(deps.db, scope, started.backtestId, { limit: o.limit });
          kit.print(report, summary(report));
          if (report.status === 'failed') process.exitCode = 1;
        } finally {
          bar?.stop();
        }
      }),
    );
}

export function backtestResultCommand(policy: Command, kit: CliKit): void {
  policy
    .command('backtest-result <backtest_id>')
    .description('a stored backtest, with a page of its flipped events')
    .requiredOption('--tenant <id>', 'tenant id')
    .addOption(modeOption().makeOptionMandatory())
    .option('--cursor <cursor>', 'next page of flips')
    .option('--limit <n>', 'flips per page', (v) => Number(v), 50)
    .action(
      kit.withDeps(['db'], async (deps, id: string, o: { tenant: string; mode: 'live' | 'test'; cursor?: string; limit: number }) => {
        const { backtestReport } = await import('../policies/backtests/start-backtest.js');
        const report = await backtestReport(deps.db, await scopeOf(deps, o), id, { cursor: o.cursor, limit: o.limit });
        kit.print(report, summary(report));
      }),
    );
}
