// Searches each store for raw values (an erasure test's proof): every row of every table in
// Postgres (the job queue's included), every node and relationship of a tenant in Neo4j, every key
// name and sorted-set member in the Redis database. Case-insensitive substring matches.
import { createHash } from 'node:crypto';
import { connectOwn } from '../../src/db/long-read.js';
import type { Deps } from '../../src/deps.js';

// Every row of every table of the suite's database, read whole: on a database the suite has
// filled, longer than the service's statement and query timeouts allow, so on a connection of its
// own without them.
export async function postgresRowsContaining(deps: Deps, value: string): Promise<string[]> {
  const { client } = await connectOwn(deps.db);
  try {
    await client.query('SET statement_timeout = 0');
    const { rows: tables } = await client.query<{ t: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname IN ('public', 'pgboss') ORDER BY 1`,
    );
    const found: string[] = [];
    for (const { t } of tables) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${t} x WHERE strpos(lower(x::text), lower($1)) > 0`,
        [value],
      );
      if (rows[0]!.n > 0) found.push(`${t}: ${rows[0]!.n}`);
    }
    return found;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function graphEntitiesContaining(deps: Deps, tenantId: string, value: string): Promise<number> {
  const matches = `any(k IN keys(x) WHERE CASE WHEN valueType(x[k]) STARTS WITH 'LIST'
      THEN any(v IN x[k] WHERE toLower(toString(v)) CONTAINS toLower($value)) ELSE toLower(toString(x[k])) CONTAINS toLower($value) END)`;
  const nodes = await deps.graph.executeQuery(`MATCH (x) WHERE x.tenantId = $tenantId AND ${matches} RETURN count(x) AS n`, {
    tenantId,
    value,
  });
  const rels = await deps.graph.executeQuery(`MATCH (a)-[x]->() WHERE a.tenantId = $tenantId AND ${matches} RETURN count(x) AS n`, {
    tenantId,
    value,
  });
  return Number(nodes.records[0]!.get('n')) + Number(rels.records[0]!.get('n'));
}

// The digest velocity keys and members are made of (velocity-store.ts).
export const velocityDigest = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 22);

export async function redisEntriesContaining(deps: Deps, values: string[]): Promise<string[]> {
  const found: string[] = [];
  const wanted = values.map((v) => v.toLowerCase());
  let cursor = '0';
  do {
    const [next, keys] = await deps.redis.scan(cursor, 'COUNT', '1000');
    cursor = next;
    for (const key of keys) {
      const members = (await deps.redis.type(key)) === 'zset' ? await deps.redis.zrange(key, '0', '-1') : [];
      for (const text of [key, ...members]) if (wanted.some((w) => text.toLowerCase().includes(w))) found.push(`${key} ∋ ${text}`);
    }
  } while (cursor !== '0');
  return found;
}
