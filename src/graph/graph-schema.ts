// The Neo4j schema (cypher/schema/, in file order): uniqueness constraints on each node's natural
// key within its tenant and mode, and the indexes the verdict's read and the writer use.
// Idempotent (every statement is IF NOT EXISTS); run by `doorman migrate` and the test run.
import type { Driver } from 'neo4j-driver';
import { splitStatements, type CypherCatalog } from './cypher-catalog.js';

export async function migrateGraph(graph: Driver, cypher: CypherCatalog): Promise<number> {
  let count = 0;
  for (const name of cypher
    .names()
    .filter((n) => n.startsWith('schema/'))
    .sort()) {
    for (const statement of splitStatements(cypher.get(name))) {
      await graph.executeQuery(statement);
      count++;
    }
  }
  return count;
}
