// Some of the composition root, for one-shot `doorman` commands: only the parts of Deps a command
// names, each built by the constructor createDeps (src/deps.ts) calls and configured alike, and
// each part's modules loaded only when it is named. So `doorman key create` loads and connects
// to Postgres alone: no Neo4j driver, Redis client or job queue (README, "The ops CLI").
// Processes that serve or work, and commands that run a graph writer, take createDeps: every client.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Deps } from './deps.js';

// The parts a command may name; the others (a graph writer, the policy registry, Redis…) come
// only with createDeps.
export type PartName = 'db' | 'clock' | 'cypher' | 'graph' | 'analystGraph' | 'graphOutbox' | 'vault' | 'boss' | 'ipIntel';

export type PartialDeps<K extends PartName> = Pick<Deps, 'config' | 'logger' | K> & {
  // Closes what was built, in createDeps's order: the job queue first, then the connections.
  close(): Promise<void>;
};

export async function createPartialDeps<K extends PartName>(config: Config, logger: Logger, names: readonly K[]): Promise<PartialDeps<K>> {
  const wanted = new Set<PartName>(names);
  // What a part is built from is built with it.
  if (wanted.has('vault') || wanted.has('graphOutbox') || wanted.has('ipIntel')) wanted.add('db');
  if (wanted.has('graph') && config.otelEndpoint) wanted.add('cypher');

  const built: Partial<Deps> = {};
  if (wanted.has('clock')) built.clock = (await import('./clock.js')).systemClock;
  if (wanted.has('db')) {
    const db = (await import('./db/create-pool.js')).createPool(config);
    db.on('error', (err) => logger.warn({ err: err.message }, 'postgres idle client error'));
    built.db = db;
  }
  if (wanted.has('cypher')) built.cypher = (await import('./graph/cypher-catalog.js')).loadCypher();
  if (wanted.has('graph')) {
    const driver = (await import('./graph/create-graph-driver.js')).createGraphDriver(config);
    built.graph = config.otelEndpoint
      ? (await import('./tracing/traced-graph-driver.js')).tracedGraphDriver(driver, built.cypher!)
      : driver;
  }
  if (wanted.has('analystGraph')) built.analystGraph = (await import('./graph/analyst-graph.js')).createAnalystGraph(config);
  if (wanted.has('graphOutbox')) built.graphOutbox = (await import('./graph/graph-outbox.js')).createGraphOutbox(built.db!);
  if (wanted.has('vault')) {
    const { createVault, masterKeyOf } = await import('./vault/vault.js');
    built.vault = createVault(built.db!, config.secretsKeys.map(masterKeyOf));
  }
  if (wanted.has('boss'))
    built.boss = (await import('./jobs/job-queue.js')).createBoss(config.databaseDirectUrl, logger, config.jobMaintenanceSeconds);
  if (wanted.has('ipIntel')) {
    // With the fetched ip lists, as a serving instance loads them.
    const { createFetchedFeeds, intelCopiesDir } = await import('./intel/fetched-feeds.js');
    const feeds = createFetchedFeeds({ db: built.db!, copies: intelCopiesDir(config.intelDir, config.databaseUrl), logger });
    built.ipIntel = (await import('./signals/ip/ip-intel.js')).createIpIntel({
      dir: config.intelDir,
      logger,
      extraSources: feeds.ipSources(),
    });
  }

  const { db, graph, analystGraph, boss } = built;
  const deps = {
    ...built,
    config,
    logger,
    async close() {
      await boss?.stop({ graceful: true, wait: true, timeout: 10_000 }).catch(() => undefined);
      await Promise.allSettled([db?.end(), graph?.close(), analystGraph?.close()]);
    },
  };
  // Every part named (and those it is built from) is built above.
  return deps as PartialDeps<K>;
}
