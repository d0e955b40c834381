// `node --import tsx bench/capacity.ts` (DATABASE_URL and REDIS_URL of a migrated database, e.g.
// the bench's doorman_bench; nothing else running): the per-store figures docs/scaling.md's
// capacity model needs, each measured on its own with the bench's traffic mix:
//   1. Postgres: the verdict's write statement (event + outbox row) per second, 16 at once;
//   2. the graph writer: outbox links applied per second, by batch size, from a queued backlog;
//   3. Neo4j: the verdict's cluster read per second, 16 at once.
// Bounded in count and time, loopback only; the run's graph data is removed at the end.
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { newId } from '../src/db/new-id.js';
import { defaultPolicy } from '../src/engine/policy.js';
import { createGraphWriter } from '../src/graph/graph-writer.js';
import { graphLinkOf, readClusterFacts, type GraphLink } from '../src/graph/identity-graph.js';
import { createTenant } from '../src/tenants/manage-tenants.js';
import { writeJudgedEvent } from '../src/verdicts/verdict-store.js';

// The writes here wake no writer: their links wait as the backlog that step 2's writers drain.
const NO_WAKE = { written: () => undefined };
import { removeGraph } from './seed-growth.js';
import { createTraffic } from './traffic.js';

const CONCURRENCY = 16;
const SECONDS = 10;
const BACKLOG = 6000;
const BATCH_SIZES = [50, 200, 1000];

const config = { ...loadConfig(), pgQueryTimeoutMs: 600_000 };
const deps = createDeps(config);
const { tenantId } = await createTenant(deps.db, `capacity-${Date.now()}`);
const scope = { tenantId, mode: 'test' as const };
const next = createTraffic(5, []);
const log = (msg: string) => process.stderr.write(`[capacity] ${msg}\n`);

function aLink(): { body: Record<string, any>; eventId: string; at: Date; link: GraphLink | undefined } {
  const body = next() as Record<string, any>;
  const eventId = newId('evt');
  const at = new Date();
  const link = graphLinkOf(
    scope,
    {
      eventId,
      eventType: body.event_type,
      at: at.getTime(),
      account: body.external_user_id,
      email: body.email,
      card: body.payment?.card_fingerprint,
      cardCountry: body.payment?.card_country,
      identity: body.identity,
    },
    config.hubThreshold,
  );
  return { body, eventId, at, link };
}

async function writeOne(): Promise<void> {
  const { body, eventId, at, link } = aLink();
  const response = JSON.stringify({ id: eventId, verdict: 'allow', reasons: [], policy_version: defaultPolicy.version });
  await writeJudgedEvent(
    deps.db,
    NO_WAKE,
    scope,
    {
      id: eventId,
      eventType: body.event_type,
      verdict: 'allow',
      reasons: [],
      policyVersion: defaultPolicy.version,
      createdAt: at,
      externalUserId: body.external_user_id,
      email: body.email,
      request: body,
      signals: {},
    },
    { response, link },
  );
}

// `workers` loops at once for `seconds`, or until `count` calls in all; returns calls per second.
async function rate(work: () => Promise<void>, opts: { seconds?: number; count?: number }): Promise<{ perSecond: number; calls: number }> {
  const started = performance.now();
  const until = started + (opts.seconds ?? 3600) * 1000;
  let calls = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until && (opts.count === undefined || calls < opts.count)) {
        calls += 1;
        await work();
      }
    }),
  );
  return { perSecond: Math.round((calls * 1000) / (performance.now() - started)), calls };
}

const backlog = async () =>
  (await deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM graph_outbox WHERE tenant_id = $1 AND failed_at IS NULL', [tenantId]))
    .rows[0]!.n;

// 1. Postgres write statements.
await rate(writeOne, { seconds: 2 });
const pgWrites = await rate(writeOne, { seconds: SECONDS });
log(`Postgres: ${pgWrites.perSecond} verdict write statements/s at ${CONCURRENCY} concurrent (${pgWrites.calls} in ${SECONDS} s)`);

// 2. The graph writer, per batch size, each from a fresh backlog of BACKLOG links.
const writer: Record<number, number> = {};
async function drainBacklog(batchSize: number): Promise<{ rows: number; seconds: number }> {
  const queued = await backlog();
  if (queued < BACKLOG) await rate(writeOne, { count: BACKLOG - queued });
  const rows = await backlog();
  const w = createGraphWriter(
    {
      config: { databaseUrl: config.databaseUrl },
      graph: deps.graph,
      cypher: deps.cypher,
      logger: pino({ level: 'silent' }),
      graphOutbox: deps.graphOutbox,
    },
    { batchSize, lingerMs: 0, idlePollMs: 50 },
  );
  const started = performance.now();
  await w.start();
  while ((await backlog()) > 0 && performance.now() - started < 300_000) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - started) / 1000;
  await w.stop();
  return { rows, seconds };
}
// A first pass, not reported, warms Neo4j up on this tenant's data.
await drainBacklog(200);
for (const batchSize of BATCH_SIZES) {
  const { rows, seconds } = await drainBacklog(batchSize);
  writer[batchSize] = Math.round(rows / seconds);
  log(`graph writer, batch ${batchSize}: ${rows} links in ${seconds.toFixed(1)} s = ${writer[batchSize]} links/s`);
}

// 3. Neo4j cluster reads.
const links = Array.from({ length: 2000 }, () => aLink().link).filter((l): l is GraphLink => l !== undefined);
let i = 0;
await rate(() => readClusterFacts(deps.graph, deps.cypher, links[i++ % links.length]!, 5000).then(() => undefined), { seconds: 2 });
const reads = await rate(() => readClusterFacts(deps.graph, deps.cypher, links[i++ % links.length]!, 5000).then(() => undefined), {
  seconds: SECONDS,
});
log(`Neo4j: ${reads.perSecond} cluster reads/s at ${CONCURRENCY} concurrent`);

await removeGraph(deps, scope);
await deps.db.query('DELETE FROM graph_outbox WHERE tenant_id = $1', [tenantId]);
await deps.close();
process.stdout.write(
  `${JSON.stringify({ postgres_writes_per_second: pgWrites.perSecond, graph_writer_links_per_second: writer, neo4j_cluster_reads_per_second: reads.perSecond, concurrency: CONCURRENCY })}\n`,
);
process.exit(0);
