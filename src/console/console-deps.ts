// What the console needs: its door's (auth/console-auth-deps.ts), its own reads of Postgres and the graph,
// and what the use cases it calls need (feedback, reviews, graph queries, webhooks). The
// composition root (src/deps.ts) passes its Deps.
import type { Driver } from 'neo4j-driver';
import type { Logger } from 'pino';
import type PgBoss from 'pg-boss';
import type { Config } from '../config.js';
import type { AnalystGraph } from '../graph/analyst-graph.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import type { Vault } from '../vault/vault.js';
import type { ConsoleAuthDeps } from './auth/console-auth-deps.js';

export interface ConsoleDeps extends ConsoleAuthDeps {
  config: Config;
  logger: Logger;
  graph: Driver;
  analystGraph: AnalystGraph;
  cypher: CypherCatalog;
  boss: PgBoss;
  graphOutbox: GraphOutbox;
  vault: Vault;
}
