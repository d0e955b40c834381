// Root hooks: migrate the test stores once before the run and start this process's graph writer
// (as every `serve` process runs one); close every connection after it.
import { migrateGraph, migrateJobQueue, migratePostgres } from '../../src/db/migrate.js';
import type { GraphWriter } from '../../src/graph/graph-writer.js';
import { closeAllTestDeps, ownTestDeps } from './test-deps.js';

// Kept on globalThis: mocha loads this file as a root-hook module apart from the test files'
// imports of it, so a module variable would not be shared.
const holder = globalThis as { doormanRootGraphWriter?: GraphWriter };

// The test process's graph writer holds every lane; a test that wants child processes to apply
// the outbox themselves (shutdown flush, scale-out) stops it for a while and starts it again.
export function rootGraphWriter(): GraphWriter {
  if (!holder.doormanRootGraphWriter) throw new Error('the root hooks have not started the graph writer');
  return holder.doormanRootGraphWriter;
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    const deps = ownTestDeps();
    await migratePostgres(deps.config, deps.logger);
    await migrateJobQueue(deps.config.databaseUrl, deps.logger);
    await migrateGraph(deps.graph, deps.cypher);
    await deps.graphWriter.start();
    holder.doormanRootGraphWriter = deps.graphWriter;
  },
  async afterAll() {
    await closeAllTestDeps();
  },
};
