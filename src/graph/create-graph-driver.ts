// The Neo4j driver as the service configures it, in one place (rule 9): createDeps calls it, and it
// lives apart from deps.ts so that building a driver does not load every other client.
import neo4j, { type Driver } from 'neo4j-driver';
import type { Config } from '../config.js';
import { batchBoltWrites } from './bolt-write-batching.js';

export function createGraphDriver(config: Config): Driver {
  // A Bolt message leaves in one socket write, not one per 1,400-byte chunk.
  batchBoltWrites();
  const auth = config.neo4jPassword ? neo4j.auth.basic(config.neo4jUser, config.neo4jPassword) : undefined;
  return neo4j.driver(config.neo4jUri, auth, {
    maxConnectionPoolSize: 50,
    connectionAcquisitionTimeout: 3000,
    connectionTimeout: 3000,
    // Health probes and analyst queries use managed transactions; do not let them retry long.
    maxTransactionRetryTime: 2000,
    disableLosslessIntegers: true,
  });
}
