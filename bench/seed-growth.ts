// Bulk-loads stored history for the growth run, fast and not through the API: events with one
// INSERT … SELECT over generate_series in Postgres, and a graph of matching shape (an account,
// an email and a cluster per four events) with batched UNWIND in Neo4j.
import type { Scope } from '../src/scope.js';
import type { Deps } from '../src/deps.js';

// In batches, each well inside the pool's query timeout (PG_QUERY_TIMEOUT_MS).
const EVENT_BATCH = 50_000;

export async function seedEvents(deps: Deps, scope: Scope, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += EVENT_BATCH) await seedEventBatch(deps, scope, start, Math.min(to, start + EVENT_BATCH));
}

async function seedEventBatch(deps: Deps, scope: Scope, from: number, to: number): Promise<void> {
  await deps.db.query(
    `INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version, created_at,
       external_user_id, email, request, signals)
     SELECT $1, $2, 'evt_seed_' || lpad(i::text, 9, '0'),
            (ARRAY['signup','login','checkout_attempt','trial_start','trial_convert'])[1 + i % 5],
            (ARRAY['allow','allow','allow','review','block'])[1 + i % 5],
            '[]'::jsonb, '2026-11-22.1', now() - make_interval(secs => i % 2592000),
            'seed_' || (i / 4), 'seed' || (i / 4) || '@seed-corp.com', '{}'::jsonb, '{}'::jsonb
       FROM generate_series($3::int, $4::int) AS i`,
    [scope.tenantId, scope.mode, from, to - 1],
  );
}

const GRAPH_BATCH = 20_000;

export async function seedGraph(deps: Deps, scope: Scope, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += GRAPH_BATCH) {
    const end = Math.min(to, start + GRAPH_BATCH) - 1;
    await deps.graph.executeQuery(
      `UNWIND range($start, $end) AS i
       WITH i, i / 4 AS u
       MERGE (a:Account {tenantId: $tenantId, mode: $mode, externalId: 'seed_' + toString(u)})
         ON CREATE SET a.history = true, a.firstSeenAt = timestamp()
       MERGE (m:Identifier:Email {tenantId: $tenantId, mode: $mode, kind: 'email', value: 'seed' + toString(u) + '@seed-corp.com'})
         ON CREATE SET m.accounts = 1, m.anonymous = 0, m.hub = false, m.firstSeenAt = timestamp(), m.lastSeenAt = timestamp()
       MERGE (c:Cluster {tenantId: $tenantId, mode: $mode, id: 'clu_seed_' + toString(u)})
         ON CREATE SET c.size = 2, c.accounts = 1, c.confirmedAbuse = false, c.falsePositive = false,
                       c.chargebacks = 0, c.suppressed = [], c.cardAt = [], c.cardValue = [], c.cardCountry = []
       MERGE (a)-[:IN]->(c)
       MERGE (m)-[:IN]->(c)
       MERGE (a)-[:LINKED]->(m)
       CREATE (e:Event {tenantId: $tenantId, mode: $mode, id: 'evt_seed_' + toString(i), type: 'signup', at: timestamp(), counted: true})
       CREATE (e)-[:BY]->(a)
       CREATE (e)-[:USED]->(m)`,
      { tenantId: scope.tenantId, mode: scope.mode, start, end },
    );
  }
}

// After a bulk load Postgres has background work to do (autovacuum, a checkpoint); do it now so
// the measurement that follows is of serving, not of the load's aftermath.
export async function settle(deps: Deps): Promise<void> {
  await deps.db.query('VACUUM ANALYZE events');
  await deps.db.query('CHECKPOINT');
  // Neo4j Community has no db.checkpoint(); it checkpoints on its own schedule.
}

// The run's graph data goes when the run ends (Neo4j Community has one database to share).
export async function removeGraph(deps: Deps, scope: Scope): Promise<void> {
  const session = deps.graph.session();
  try {
    await session.run(`MATCH (n {tenantId: $tenantId, mode: $mode}) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS`, {
      tenantId: scope.tenantId,
      mode: scope.mode,
    });
  } finally {
    await session.close();
  }
}
