// Root hooks: migrate the test stores once before the run and start this process's graph writer
// (as every `serve` process runs one); close every connection after it.
import { migrateGraph, migrateJobQueue, migratePostgres } from '../../src/db/migrate.js';
import { closeAllTestDeps, ownTestDeps } from './test-deps.js';

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    const deps = ownTestDeps();
    await migratePostgres(deps.config, deps.logger);
    await migrateJobQueue(deps.config.databaseUrl, deps.logger);
    await migrateGraph(deps.graph, deps.cypher);
    await deps.graphWriter.start();
  },
  async afterAll() {
    await closeAllTestDeps();
  },
};
