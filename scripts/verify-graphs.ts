// `npm test`'s last stage: `doorman graph verify` over every scope the run created (its
// tenants made since --since), so the suite's own traffic leaves the graph equal to Postgres.
// Scopes a test leaves different on purpose are noted in test_graph_scopes
// (test/support/graph-scopes.ts) and skipped; a tenant whose servers ran with another hub
// threshold is verified with it. Prints one line per scope that differs and a summary; exits 1 if any differs.
// With --shards N, also the databases of shards 2..N (scripts/test-shards.mjs: <database>_s<k>).
// Usage: tsx scripts/verify-graphs.ts [--since ISO] [--shards N] [--concurrency N]
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { createPool } from '../src/db/create-pool.js';
import { pino } from 'pino';
import { createGraphDriver } from '../src/graph/create-graph-driver.js';
import { loadCypher } from '../src/graph/cypher-catalog.js';
import { createGraphOutbox } from '../src/graph/graph-outbox.js';
import { pendingGraphOps } from '../src/graph/graph-outbox-store.js';
import { createGraphWriter } from '../src/graph/graph-writer.js';
import { verifyGraph, type VerifyResult } from '../src/lifecycle/verify-graph.js';
import { createPolicyRegistry } from '../src/policies/documents/policy-registry.js';
import type { Scope } from '../src/scope.js';
import { GRAPH_SCOPES_TABLE } from '../test/support/graph-scopes.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const since = arg('--since');
const concurrency = Number(arg('--concurrency') ?? 4);

const shards = Number(arg('--shards') ?? 1);
const databaseOf = (k: number) => {
  const url = new URL(process.env.DATABASE_URL || 'postgres://localhost:5432/doorman_test');
  if (k > 1) url.pathname = `${url.pathname.replace(/^\//, '')}_s${k}`;
  return url.href;
};
let anyDiffer = false;
for (let k = 1; k <= shards; k += 1) {
  const databaseUrl = databaseOf(k);
  if (shards > 1) process.stdout.write(`[graph verify] ${new URL(databaseUrl).pathname.slice(1)}\n`);
  if (!(await verifyDatabase(databaseUrl))) anyDiffer = true;
}
process.exitCode = anyDiffer ? 1 : 0;

async function verifyDatabase(databaseUrl: string): Promise<boolean> {
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, DATABASE_DIRECT_URL: databaseUrl });
  // What the checker reads with, built as createDeps builds them (no Redis, no writer, no queue).
  const db = createPool(config);
  const graph = createGraphDriver(config);
  const cypher = loadCypher();
  const deps = { db, graph, cypher, config, policies: createPolicyRegistry(db), clock: systemClock };
  const started = Date.now();
  // What the run left in the outbox is applied first (a test that stopped its servers early, a
  // fault suite's last outage): a graph writer of this process takes the lanes no one holds.
  const writer = createGraphWriter({
    config: { databaseUrl: config.databaseDirectUrl },
    graph,
    cypher,
    logger: pino({ level: 'warn' }),
    graphOutbox: createGraphOutbox(db),
    clock: systemClock,
  });
  try {
    await writer.start();
    const drainedBy = Date.now() + 60_000;
    while ((await pendingGraphOps(db)) > 0) {
      if (Date.now() > drainedBy) throw new Error(`${await pendingGraphOps(db)} outbox rows still waiting after 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await writer.stop();
    await deps.db.query(GRAPH_SCOPES_TABLE);
    const { rows } = await deps.db.query<{ tenant_id: string; mode: Scope['mode']; hub_threshold: number | null }>(
      `SELECT DISTINCT e.tenant_id, e.mode, n.hub_threshold FROM events e JOIN tenants t ON t.id = e.tenant_id
         LEFT JOIN test_graph_scopes n ON n.tenant_id = e.tenant_id
        WHERE ($1::timestamptz IS NULL OR t.created_at >= $1) AND n.drift IS NULL
        ORDER BY 1, 2`,
      [since ?? null],
    );
    const { rows: skipped } = await deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM test_graph_scopes d JOIN tenants t ON t.id = d.tenant_id WHERE d.drift IS NOT NULL AND ($1::timestamptz IS NULL OR t.created_at >= $1)`,
      [since ?? null],
    );
    const scopes = rows.map((r) => ({ tenantId: r.tenant_id, mode: r.mode, hubThreshold: r.hub_threshold }));
    const differing: { scope: Scope; result: VerifyResult }[] = [];
    let next = 0;
    const totals = { events: 0, accounts: 0, identifiers: 0, links: 0, marks: 0, clusters: 0 };
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < scopes.length) {
          const { hubThreshold, ...scope } = scopes[next++]!;
          const result = await verifyGraph(hubThreshold === null ? deps : { ...deps, config: { ...config, hubThreshold } }, scope, {
            limit: 20,
          });
          for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += result.checked[k];
          if (!result.ok) differing.push({ scope, result });
        }
      }),
    );
    for (const { scope, result } of differing) {
      process.stdout.write(
        `[graph verify] ${scope.tenantId} (${scope.mode}) differs in ${result.differences.length + result.more} place(s):\n`,
      );
      for (const d of result.differences) process.stdout.write(`  ${JSON.stringify(d)}\n`);
    }
    process.stdout.write(
      `[graph verify] ${scopes.length} scopes (${skipped[0]?.n ?? 0} left out: drift made on purpose), ${differing.length} differ; ${totals.events} events, ${totals.accounts} accounts, ${totals.identifiers} identifiers, ${totals.links} links, ${totals.marks} marks, ${totals.clusters} clusters checked in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    return differing.length === 0;
  } finally {
    await writer.stop().catch(() => undefined);
    await Promise.allSettled([db.end(), graph.close()]);
  }
}
