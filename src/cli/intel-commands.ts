// `doorman intel update|status|reload` (README, "IP intelligence"): the public feeds fetched at run
// time and the files in INTEL_DIR. CLI code only: the work is in src/intel/, loaded when a
// command runs.
import type { Command } from 'commander';
import type { CliKit } from './cli-kit.js';

const collect = (value: string, previous: string[]) => [...previous, value];

export function addIntelCommands(program: Command, { print, withDeps }: CliKit): void {
  const intel = program.command('intel').description('ip and domain intelligence: the fetched public feeds and INTEL_DIR');
  intel
    .command('update')
    .description('fetch the public feeds now (each source, or those named), store what changed, and have every instance reload')
    .option('--source <name>', 'only this source (repeatable)', collect, [])
    .option('--force', 'store an answer even when it shrank by more than half or parses to nothing')
    .action(
      withDeps(['db', 'clock'], async (deps, opts: { source: string[]; force?: boolean }) => {
        const { updateIntel } = await import('../intel/update-intel.js');
        const result = await updateIntel(deps, { only: opts.source, force: opts.force === true });
        print(
          result,
          result.sources
            .map(
              (s) => `${s.name.padEnd(28)} ${s.status.padEnd(9)} ${String(s.entries).padStart(7)} entries${s.error ? `  ${s.error}` : ''}`,
            )
            .join('\n'),
        );
      }),
    );
  intel
    .command('status')
    .description('per source: when it last answered well, its entries, its last error, and whether it is stale')
    .action(
      withDeps(['db', 'clock'], async (deps) => {
        const { intelStatus } = await import('../intel/intel-status.js');
        const status = await intelStatus(deps);
        const age = (s: number | null) => (s === null ? 'never' : `${Math.round(s / 60)} min ago`);
        print(
          status,
          status.sources
            .map(
              (s) =>
                `${s.name.padEnd(28)} ${age(s.age_seconds).padEnd(14)} ${String(s.entries).padStart(7)} entries${s.stale ? '  STALE' : ''}${s.last_error ? `  last error: ${s.last_error}` : ''}`,
            )
            .join('\n'),
        );
      }),
    );
  intel
    .command('reload')
    .description('check the files and feeds, then tell every running instance to reload them (no restart)')
    .action(
      withDeps(['db', 'ipIntel'], async (deps) => {
        const { requestIntelReload } = await import('../signals/ip/intel-reload.js');
        // Load here first, so a broken folder fails this command instead of silently in the fleet.
        const loaded = await deps.ipIntel.reload();
        await requestIntelReload(deps);
        print(
          { ok: true, counts: loaded.counts, skipped: loaded.skipped },
          `Reload requested; files and feeds hold ${JSON.stringify(loaded.counts)} (skipped lines: ${JSON.stringify(loaded.skipped)}).`,
        );
      }),
    );
}
