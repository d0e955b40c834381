// Root hooks: migrate the test stores once before the run and start this process's graph writer
// (as every `serve` process runs one); after it, replay every decision this run made (the
// tenants it created) that records the engine that judged it, expecting zero differences;
// then close every connection.
import { migrateJobQueue, migratePostgres } from '../../src/db/migrate.js';
import { migrateGraph } from '../../src/graph/graph-schema.js';
import { ENGINE_VERSION } from '../../src/engine/engine-version.js';
import type { GraphWriter } from '../../src/graph/graph-writer.js';
import { replayAll } from '../../src/policies/replay/replay-all.js';
import { closeAllTestDeps, ownTestDeps } from './test-deps.js';

// This process's graph writer (the root deps'): it holds every lane; a test that wants child
// processes to apply the outbox themselves (a broken writer, shutdown flush, scale-out) stops it
// for a while and starts it again. On globalThis: mocha loads this file as a root-hook module
// apart from the test files' imports of it, so a module variable would not be shared.
export function processGraphWriter(): GraphWriter {
  const writer = (globalThis as { doormanProcessGraphWriter?: GraphWriter }).doormanProcessGraphWriter;
  if (!writer) throw new Error('the root hook has not started the graph writer');
  return writer;
}
export const rootGraphWriter = processGraphWriter;

let runStartedAt: Date | undefined;

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    const deps = ownTestDeps();
    await migratePostgres(deps.config, deps.logger);
    await migrateJobQueue(deps.config.databaseUrl, deps.logger);
    await migrateGraph(deps.graph, deps.cypher);
    await deps.graphWriter.start();
    (globalThis as { doormanProcessGraphWriter?: GraphWriter }).doormanProcessGraphWriter = deps.graphWriter;
    runStartedAt = (await deps.db.query<{ now: Date }>('SELECT now()')).rows[0]!.now;
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(300_000);
    try {
      await replayThisRun();
    } finally {
      await closeAllTestDeps();
    }
  },
};

// Decisions that failed open, and rows written before engine versions were stored, record no
// engine version and are left out: no rule judged the former, the latter predate the record.
async function replayThisRun(): Promise<void> {
  if (!runStartedAt) return;
  const deps = ownTestDeps();
  const { rows } = await deps.db.query<{ id: string }>('SELECT id FROM tenants WHERE created_at >= $1', [runStartedAt]);
  if (rows.length === 0) return;
  const check = await replayAll(deps, { tenantIds: rows.map((r) => r.id), engineVersion: ENGINE_VERSION }, 5);
  if (check.different > 0 || check.unknown_policy > 0) {
    throw new Error(
      `replaying this run's ${check.events} decisions: ${check.different} differ, ${check.unknown_policy} name an unknown policy; first: ${JSON.stringify(check.differences)}`,
    );
  }
  process.stdout.write(`[replay] ${check.events} decisions of this run replayed by engine ${ENGINE_VERSION}: all the same\n`);
}
