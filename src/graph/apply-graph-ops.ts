// Applies a batch of outbox rows to Neo4j in seq order, in one write transaction: each run of
// consecutive rows of one kind is one UNWIND statement (graph/apply-links, graph/apply-marks,
// graph/apply-forgets). A scope delete (graph rebuild) is the exception: it empties the scope in
// transactions of its own, 5,000 nodes each (graph/delete-scope-batch), between the rows before
// and after it. A batch of the graph writer carries its lane's fence (lane and epoch): every
// transaction first passes the lane's fence node (writer/fence-lane) or writes nothing.
import neo4j, { type Driver, type ManagedTransaction, type Session } from 'neo4j-driver';
import { newId } from '../db/new-id.js';
import type { CypherCatalog } from './cypher-catalog.js';
import type { OutboxRow } from './graph-outbox-store.js';

function runsOfOneKind(rows: OutboxRow[]): OutboxRow[][] {
  const runs: OutboxRow[][] = [];
  for (const row of rows) {
    const last = runs.at(-1);
    if (last && last[0]!.kind === row.kind) last.push(row);
    else runs.push([row]);
  }
  return runs;
}

export interface LaneFence {
  lane: number;
  epoch: number;
}

// Thrown when the lane's fence in Neo4j is past this batch's epoch: a newer owner has written,
// or the epochs in Postgres fell behind the graph's (a restored backup). `seen` is the fence's
// epoch; only a writer that still holds the lane's lock may move past it (graph-writer.ts).
export class StaleLaneError extends Error {
  constructor(readonly fence: LaneFence, readonly seen: number) {
    super(`lane ${fence.lane}: epoch ${fence.epoch} is behind the lane's fence (${seen})`);
    this.name = 'StaleLaneError';
  }
}

const SCOPE_DELETE_BATCH = 5000;

export async function applyGraphOps(graph: Driver, cypher: CypherCatalog, rows: OutboxRow[], timeoutMs: number, fence?: LaneFence): Promise<void> {
  const session = graph.session({ defaultAccessMode: neo4j.session.WRITE });
  const fenced = async (tx: ManagedTransaction) => {
    if (!fence) return;
    const { records } = await tx.run(cypher.get('writer/fence-lane'), { lane: neo4j.int(fence.lane), epoch: neo4j.int(fence.epoch) });
    // Thrown inside the work: the transaction rolls back, and executeWrite does not retry it.
    if (records[0]?.get('passed') !== true) throw new StaleLaneError(fence, Number(records[0]?.get('fence') ?? Number.NaN));
  };
  try {
    let from = 0;
    while (from < rows.length) {
      const at = rows.findIndex((r, i) => i >= from && r.kind === 'delete_scope');
      const until = at < 0 ? rows.length : at;
      if (until > from) await applyRuns(session, cypher, rows.slice(from, until), timeoutMs, fenced);
      if (at < 0) break;
      const { tenantId, mode } = (rows[at] as Extract<OutboxRow, { kind: 'delete_scope' }>).payload;
      for (;;) {
        const deleted = await session.executeWrite(async (tx) => {
          await fenced(tx);
          const { records } = await tx.run(cypher.get('graph/delete-scope-batch'), { tenantId, mode, limit: neo4j.int(SCOPE_DELETE_BATCH) });
          return Number(records[0]?.get('deleted') ?? 0);
        }, { timeout: timeoutMs });
        if (deleted === 0) break;
      }
      from = at + 1;
    }
  } finally {
    await session.close();
  }
}

async function applyRuns(session: Session, cypher: CypherCatalog, rows: OutboxRow[], timeoutMs: number, fenced: (tx: ManagedTransaction) => Promise<void>): Promise<void> {
  await session.executeWrite(async (tx) => {
    await fenced(tx);
    for (const run of runsOfOneKind(rows)) {
      if (run[0]!.kind === 'link') {
        // A cluster that a link creates gets a fresh id; a re-applied link finds its members
        // in a cluster already and creates none.
        await tx.run(cypher.get('graph/apply-links'), { links: run.map((r) => ({ ...r.payload, clusterId: newId('clu') })) });
      } else if (run[0]!.kind === 'mark') {
        await tx.run(cypher.get('graph/apply-marks'), { marks: run.map((r) => r.payload) });
      } else if (run[0]!.kind === 'forget') {
        await tx.run(cypher.get('graph/apply-forgets'), { forgets: run.map((r) => r.payload) });
      }
    }
  }, { timeout: timeoutMs });
}

// A statement Neo4j refused as invalid (not an outage, not a transient conflict): retrying the
// same row cannot succeed, so it is set aside instead of blocking its lane.
export function isInvalidOp(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('Neo.ClientError.') && !code.startsWith('Neo.ClientError.Security.') && !code.startsWith('Neo.ClientError.Transaction.');
}

// Plans the writer's statements with empty batches (warm-up): Neo4j caches their plans, nothing
// is written.
export async function planGraphWrites(graph: Driver, cypher: CypherCatalog): Promise<void> {
  await graph.executeQuery(cypher.get('graph/apply-links'), { links: [] });
  await graph.executeQuery(cypher.get('graph/apply-marks'), { marks: [] });
}
