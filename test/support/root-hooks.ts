// Root hooks: migrate the test stores once before the run and start this process's graph writer
// (as every `serve` process runs one); close every connection after it.
import { migrateGraph, migrateJobQueue, migratePostgres } from '../../src/db/migrate.js';
import type { GraphWriter } from '../../src/graph/graph-writer.js';
import { closeAllTestDeps, ownTestDeps } from './test-deps.js';

// This process's graph writer (the root deps'), for a test that must stop it for a while. On
// globalThis: mocha loads this file through its own loader, so the tests import another copy.
export function processGraphWriter(): GraphWriter {
  const writer = (globalThis as { doormanProcessGraphWriter?: GraphWriter }).doormanProcessGraphWriter;
  if (!writer) throw new Error('the root hook has not started the graph writer');
  return writer;
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    const deps = ownTestDeps();
    await migratePostgres(deps.config, deps.logger);
    await migrateJobQueue(deps.config.databaseUrl, deps.logger);
    await migrateGraph(deps.graph, deps.cypher);
    await deps.graphWriter.start();
    (globalThis as { doormanProcessGraphWriter?: GraphWriter }).doormanProcessGraphWriter = deps.graphWriter;
  },
  async afterAll() {
    await closeAllTestDeps();
  },
};
