// `doorman graph query|check|free-form` (README, "The ops CLI"; docs/graph.md). CLI code only: the
// guard and the run are src/graph-queries/, the check src/graph/, loaded when a command runs. The CLI is not a back door: its
// Cypher passes the same guard as the console's, in the same READ transaction, and is audited.
import { Option, type Command } from 'commander';
import { AppError } from '../errors.js';
import { CLI_ACTOR } from './graph-feedback-commands.js';
import { scopeOf, scoped, type CliKit, type ScopeOptions } from './cli-kit.js';

// NAME=VALUE gives a string; NAME:=JSON a number, boolean, list or map.
export function parseParam(spec: string, into: Record<string, unknown> = {}): Record<string, unknown> {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(:?=)([\s\S]*)$/.exec(spec);
  if (!m) throw AppError.invalid([{ path: '--param', message: `"${spec}" is not NAME=VALUE or NAME:=JSON` }]);
  const [, name, op, raw] = m as unknown as [string, string, string, string];
  if (Object.hasOwn(into, name)) throw AppError.invalid([{ path: '--param', message: `$${name} is given twice` }]);
  let value: unknown = raw;
  if (op === ':=') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw AppError.invalid([{ path: '--param', message: `$${name}: ${raw} is not JSON` }]);
    }
  }
  return { ...into, [name]: value };
}

const cellText = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function addGraphQueryCommands(graph: Command, { print, withDeps }: CliKit): void {
  scoped(graph.command('query <cypher>').description("read-only Cypher over the scope's graph, through the tenant guard (audited)"))
    .option('--param <NAME=VALUE>', 'a parameter: NAME=VALUE (a string) or NAME:=JSON; repeat for more', parseParam, {})
    .action(
      withDeps(['db', 'analystGraph'], async (deps, text: string, opts: ScopeOptions & { param: Record<string, unknown> }) => {
        const { runAnalystCypher } = await import('../graph-queries/run-analyst-cypher.js');
        const scope = await scopeOf(deps, opts);
        const r = await runAnalystCypher(deps, { ...scope, analystId: null, analystEmail: CLI_ACTOR }, { text, params: opts.param });
        const rows = r.rows.map((row) => r.columns.map((c) => row[c] ?? null));
        print(
          { columns: r.columns, rows, truncated: r.truncated },
          [
            r.columns.join('\t'),
            ...rows.map((row) => row.map(cellText).join('\t')),
            `(${rows.length} rows in ${r.ms} ms${r.truncated ? ', cut at the cap' : ''})`,
          ].join('\n'),
        );
      }),
    );

  graph
    .command('check')
    .description('count relationships that cross scopes and nodes without one (both must be 0)')
    .action(
      withDeps(['graph', 'cypher'], async (deps) => {
        const { checkGraphScopes } = await import('../graph/check-graph-scopes.js');
        const c = await checkGraphScopes(deps);
        const ok = c.crossScopeRelationships === 0 && c.unscopedNodes === 0;
        const problems = [
          c.crossScopeRelationships > 0 ? `${c.crossScopeRelationships} relationships cross scopes: ${JSON.stringify(c.byType)}` : '',
          c.unscopedNodes > 0 ? `${c.unscopedNodes} nodes have no scope: ${JSON.stringify(c.unscopedByLabels)}` : '',
        ]
          .filter(Boolean)
          .join('; ');
        print(
          {
            ok,
            cross_scope_relationships: c.crossScopeRelationships,
            by_type: c.byType,
            unscoped_nodes: c.unscopedNodes,
            unscoped_by_labels: c.unscopedByLabels,
            transaction_memory_max: c.transactionMemoryMax,
          },
          ok
            ? `No relationship crosses scopes and every node has one. Neo4j's per-transaction memory cap: ${c.transactionMemoryMax ?? 'unknown'}.`
            : `${problems}. Analysts' own Cypher is not safe until they are gone.`,
        );
        if (!ok) {
          process.stderr.write(`doorman: ${problems}\n`);
          process.exitCode = 1;
        }
      }),
    );

  graph
    .command('free-form')
    .description("who may run free-form Cypher in the tenant's console: admins (default) or every analyst")
    .requiredOption('--tenant <id>', 'tenant id')
    .addOption(new Option('--roles <roles>', 'set it').choices(['admin', 'analyst']))
    .action(
      withDeps(['db'], async (deps, opts: { tenant: string; roles?: 'admin' | 'analyst' }) => {
        const [{ tenantExists }, { freeFormRoles, setFreeFormRoles }] = await Promise.all([
          import('../tenants/key-store.js'),
          import('../graph-queries/tenant-query-store.js'),
        ]);
        if (!(await tenantExists(deps.db, opts.tenant))) throw new AppError('not_found', `No tenant ${opts.tenant}.`);
        if (opts.roles) await setFreeFormRoles(deps.db, opts.tenant, opts.roles, CLI_ACTOR);
        const roles = await freeFormRoles(deps.db, opts.tenant);
        print(
          { tenant_id: opts.tenant, free_form_roles: roles },
          `Free-form Cypher in ${opts.tenant}: ${roles === 'admin' ? 'admins only' : 'every analyst'}.`,
        );
      }),
    );
}
