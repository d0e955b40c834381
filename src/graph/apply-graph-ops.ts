// Applies a batch of outbox rows to Neo4j in one write transaction, in seq order: each run of
// consecutive rows of one kind is one UNWIND statement (graph/apply-links, graph/apply-marks,
// graph/apply-forgets). A batch of the graph writer carries its lane's fence (lane and epoch):
// the transaction first passes the lane's fence node (writer/fence-lane) or writes nothing.
import neo4j, { type Driver } from 'neo4j-driver';
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

export async function applyGraphOps(graph: Driver, cypher: CypherCatalog, rows: OutboxRow[], timeoutMs: number, fence?: LaneFence): Promise<void> {
  const session = graph.session({ defaultAccessMode: neo4j.session.WRITE });
  try {
    await session.executeWrite(async (tx) => {
      if (fence) {
        const { records } = await tx.run(cypher.get('writer/fence-lane'), { lane: neo4j.int(fence.lane), epoch: neo4j.int(fence.epoch) });
        // Thrown inside the work: the transaction rolls back, and executeWrite does not retry it.
        if (records[0]?.get('passed') !== true) throw new StaleLaneError(fence, Number(records[0]?.get('fence') ?? Number.NaN));
      }
      for (const run of runsOfOneKind(rows)) {
        if (run[0]!.kind === 'link') {
          // A cluster that a link creates gets a fresh id; a re-applied link finds its members
          // in a cluster already and creates none.
          await tx.run(cypher.get('graph/apply-links'), { links: run.map((r) => ({ ...r.payload, clusterId: newId('clu') })) });
        } else if (run[0]!.kind === 'mark') {
          await tx.run(cypher.get('graph/apply-marks'), { marks: run.map((r) => r.payload) });
        } else {
          await tx.run(cypher.get('graph/apply-forgets'), { forgets: run.map((r) => r.payload) });
        }
      }
    }, { timeout: timeoutMs });
  } finally {
    await session.close();
  }
}

// A statement Neo4j refused as invalid (not an outage, not a transient conflict): retrying the
// same row cannot succeed, so it is set aside instead of blocking its lane.
export function isInvalidOp(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('Neo.ClientError.') && !code.startsWith('Neo.ClientError.Security.') && !code.startsWith('Neo.ClientError.Transaction.');
}
