// A hub split at scale, against the real Neo4j: builds a scope whose one cluster of
// --members accounts is held together by one identifier, then applies the link that makes that
// identifier a hub, as the graph writer does (applyGraphOps: the split runs in the same
// transaction as the link), and times it: first under the writer's apply timeout, then, if that
// fails, without it (bounded by --max-seconds) to see what it would take. Reports the split's
// time, the peak memory of this process (the writer's side: the members read, the parts
// computed) and of the transaction in Neo4j, against the writer's timeout and Neo4j's cap on a
// transaction's memory. Its scope is deleted at the end (and at the start, if a run was cut).
// Usage: node --import tsx bench/hub-split.ts [--members 100000] [--build-batch 2000]
//   [--timeout-ms 30000] [--max-seconds 900] [--json]
// Needs NEO4J_URI (and the rest of a loadable configuration, as `doorman` does).
import { parseArgs } from 'node:util';
import neo4j from 'neo4j-driver';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { applyGraphOps } from '../src/graph/apply-graph-ops.js';
import type { OutboxRow } from '../src/graph/graph-outbox-store.js';
import type { GraphLink } from '../src/graph/identity-graph.js';
import { createPartialDeps } from '../src/partial-deps.js';

const { values: opts } = parseArgs({
  options: {
    members: { type: 'string', default: '100000' },
    'build-batch': { type: 'string', default: '2000' },
    'timeout-ms': { type: 'string', default: '30000' },
    'max-seconds': { type: 'string', default: '900' },
    json: { type: 'boolean', default: false },
  },
});
const members = Number(opts.members);
const buildBatch = Number(opts['build-batch']);
const writerTimeoutMs = Number(opts['timeout-ms']);
const maxMs = Number(opts['max-seconds']) * 1000;
const log = (msg: string) => process.stderr.write(`[bench:hub-split] ${msg}\n`);

const deps = await createPartialDeps(loadConfig(process.env), pino({ level: 'warn' }), ['graph', 'cypher']);
const scope = { tenantId: `bench_hub_split_${members}`, mode: 'test' };
const HUB = { kind: 'wifi', value: 'bench-hub-split' };
let seq = 0;
const linkRow = (account: string, hub: number): OutboxRow => {
  seq += 1;
  const payload: GraphLink = {
    ...scope,
    eventId: `evt_${account}`,
    eventType: 'signup',
    at: Date.now(),
    account,
    ids: [{ ...HUB, links: true, hub, expiryMs: null }],
    card: null,
    cardCountry: null,
    hubThreshold: 25,
  };
  return { seq: String(seq), kind: 'link', payload };
};

async function deleteScope(): Promise<void> {
  await applyGraphOps(deps.graph, deps.cypher, [{ seq: '0', kind: 'delete_scope', payload: { ...scope, at: Date.now() } }], 120_000);
}

// This process's peak memory while `work` runs, and the peak of Neo4j's estimate of the heap the
// writer's transactions used and of how long one ran (SHOW TRANSACTIONS, polled every 200 ms:
// a peak between two polls is missed).
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ ms: number; rssMb: number; heapMb: number; neo4jTxMb: number; longestTxMs: number; value?: T; error?: string }> {
  global.gc?.();
  const base = process.memoryUsage();
  let rss = base.rss;
  let heap = base.heapUsed;
  let tx = 0;
  let txMs = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 50);
  let polling = true;
  const poll = (async () => {
    while (polling) {
      try {
        const { records } = await deps.graph.executeQuery(
          `SHOW TRANSACTIONS YIELD parameters, estimatedUsedHeapMemory, elapsedTime
           WHERE parameters.tenantId = $tenantId OR any(l IN coalesce(parameters.links, []) WHERE l.tenantId = $tenantId)
           RETURN max(estimatedUsedHeapMemory) AS heap, max(elapsedTime.milliseconds) AS ms`,
          { tenantId: scope.tenantId },
          { routing: neo4j.routing.READ },
        );
        tx = Math.max(tx, Number(records[0]?.get('heap') ?? 0));
        txMs = Math.max(txMs, Number(records[0]?.get('ms') ?? 0));
      } catch {
        // a poll that fails is a sample lost
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const started = performance.now();
  let value: T | undefined;
  let error: string | undefined;
  try {
    value = await work();
  } catch (err) {
    error = String(err).split('\n')[0];
  }
  const ms = Math.round(performance.now() - started);
  polling = false;
  clearInterval(sampler);
  await poll;
  const mb = (b: number) => Math.round(b / 1024 / 1024);
  return {
    ms,
    rssMb: mb(rss),
    heapMb: mb(heap - base.heapUsed),
    neo4jTxMb: mb(tx),
    longestTxMs: txMs,
    ...(value !== undefined && { value }),
    ...(error && { error }),
  };
}

const clusterOf = async () => {
  const { records } = await deps.graph.executeQuery(
    `MATCH (c:Cluster {tenantId: $tenantId, mode: $mode}) RETURN count(c) AS clusters, max(c.size) AS largest, sum(c.accounts) AS accounts`,
    scope,
    { routing: neo4j.routing.READ },
  );
  return records[0]!.toObject() as { clusters: number; largest: number; accounts: number };
};

try {
  const cap = await deps.graph
    .executeQuery(deps.cypher.get('checks/transaction-memory-max'), {}, { routing: neo4j.routing.READ })
    .catch(() => null);
  const txMemoryMax = (cap?.records[0]?.get('value') as string | undefined) ?? 'unknown';
  await deleteScope();
  const built = performance.now();
  // Every account links the one identifier; its hub threshold is above the count, so it links.
  for (let from = 0; from < members; from += buildBatch) {
    const rows = Array.from({ length: Math.min(buildBatch, members - from) }, (_, i) => linkRow(`acct_${from + i}`, members + 10));
    await applyGraphOps(deps.graph, deps.cypher, rows, 600_000);
    if ((from / buildBatch) % 10 === 0) log(`built ${from + rows.length} of ${members} accounts`);
  }
  const buildSeconds = Math.round((performance.now() - built) / 1000);
  const before = await clusterOf();
  log(`built in ${buildSeconds} s: ${JSON.stringify(before)}; Neo4j's cap on a transaction's memory: ${txMemoryMax}`);

  // The link that makes the identifier a hub (one more account than its threshold), as the
  // writer applies it: with the writer's timeout.
  const trigger = linkRow('acct_trigger', members);
  const underTimeout = await measured(() => applyGraphOps(deps.graph, deps.cypher, [trigger], writerTimeoutMs));
  log(`under the writer's timeout (${writerTimeoutMs} ms): ${JSON.stringify(underTimeout)}`);
  let unbounded: typeof underTimeout | undefined;
  if (underTimeout.error) {
    unbounded = await measured(() => applyGraphOps(deps.graph, deps.cypher, [trigger], maxMs));
    log(`without it (at most ${maxMs / 1000} s): ${JSON.stringify(unbounded)}`);
  }
  const after = await clusterOf();
  const report = { members, buildSeconds, txMemoryMax, writerTimeoutMs, before, underTimeout, unbounded, after };
  log(`after: ${JSON.stringify(after)}`);
  if (opts.json) process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await deleteScope().catch((err: unknown) => log(`could not delete the bench's scope: ${String(err)}`));
  await deps.close();
}
