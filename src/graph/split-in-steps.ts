// Large splits in steps. A split reads every member of the cluster, moves each part that left it
// and recomputes their facts; in the transaction of the link that makes a hub, a cluster of
// 100,000 members takes longer than the writer's apply timeout and more than Neo4j's cap on a
// transaction's memory, so the link would fail again and again, hold its lane, and be set aside
// with the cluster still fused (bench/hub-split.ts measures it). So a cluster larger than
// SPLIT_IN_ONE_TRANSACTION members is only
// marked :Splitting in that transaction (cypher/graph/defer-large-splits), and split right after
// it commits, by the same writer, before its next batch: the members are read once, the parts
// computed here (recluster.ts: partsOf), and the parts that leave move with their facts
// recomputed, SPLIT_STEP members per transaction, each through the lane's fence; the last step
// recomputes what stays and ends the mark. Meanwhile the members not yet moved read the cluster's
// facts as before the split: a superset (more accounts, every mark), never less. A split cut short
// (a failure, a process gone) resumes from what is left: the writer looks for :Splitting clusters
// after each batch that marked one and in its expiry sweep (writer/expired-scopes), and a merge
// passes the mark on (graph/apply-links).
import neo4j, { type ManagedTransaction, type Session } from 'neo4j-driver';
import type { CypherCatalog } from './cypher-catalog.js';
import { partsOf, type MemberRow, type Part } from './recluster.js';

// The largest cluster split in the transaction that found it, and the members moved per step: a
// step took under a second (and tens of MB of Neo4j's heap) in a 100,000-member split that took
// 16 s in all (bench/hub-split.ts, two shared CPUs), far inside the writer's 30 s timeout.
export const SPLIT_IN_ONE_TRANSACTION = 2000;
export const SPLIT_STEP = 2000;

type Scope = { tenantId: string; mode: string };

// Marks the clusters among `ids` too large to split now; returns their ids (the others are split
// by the caller, in its transaction).
export async function deferLargeSplits(
  tx: ManagedTransaction,
  cypher: CypherCatalog,
  scope: Scope,
  ids: string[],
  at: number,
  max = SPLIT_IN_ONE_TRANSACTION,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { records } = await tx.run(cypher.get('graph/defer-large-splits'), { ...scope, ids, max: neo4j.int(max), at: neo4j.int(at) });
  return (records[0]?.get('deferred') ?? []) as string[];
}

// Groups parts into steps of at most `size` members (a larger part is a step of its own).
export function stepsOf(parts: Part[], size = SPLIT_STEP): Part[][] {
  const steps: Part[][] = [];
  let step: Part[] = [];
  let members = 0;
  for (const part of parts) {
    if (members > 0 && members + part.nodes.length > size) {
      steps.push(step);
      step = [];
      members = 0;
    }
    step.push(part);
    members += part.nodes.length;
  }
  if (step.length > 0) steps.push(step);
  return steps;
}

// Finishes every unfinished split of the scope; returns the transactions it took. `fenced` is
// the first statement of each write (the lane's fence).
export async function finishSplits(
  session: Session,
  cypher: CypherCatalog,
  scope: Scope,
  timeoutMs: number,
  fenced: (tx: ManagedTransaction) => Promise<void>,
  step = SPLIT_STEP,
): Promise<number> {
  const pending = await session.executeRead(
    async (tx) =>
      (await tx.run(cypher.get('graph/splitting-clusters'), scope)).records.map((r) => ({
        id: r.get('id') as string,
        at: Number(r.get('at') ?? Date.now()),
      })),
    { timeout: timeoutMs },
  );
  let transactions = 0;
  for (const { id, at } of pending) transactions += await splitInSteps(session, cypher, scope, id, at, timeoutMs, fenced, step);
  return transactions;
}

async function splitInSteps(
  session: Session,
  cypher: CypherCatalog,
  scope: Scope,
  id: string,
  at: number,
  timeoutMs: number,
  fenced: (tx: ManagedTransaction) => Promise<void>,
  step: number,
): Promise<number> {
  const atInt = neo4j.int(at);
  const rows = await session.executeRead(
    async (tx) =>
      (await tx.run(cypher.get('graph/cluster-members'), { ...scope, ids: [id], at: atInt })).records.map((r) => r.toObject() as MemberRow),
    { timeout: timeoutMs },
  );
  const { changed, detach } = partsOf(rows);
  // The part that keeps the cluster's id is the one that stays: its members do not move.
  const leaving = changed.filter((p) => p.id !== id);
  const steps = stepsOf(leaving, step);
  for (const parts of steps) {
    await session.executeWrite(
      async (tx) => {
        await fenced(tx);
        await tx.run(cypher.get('graph/assign-clusters'), { ...scope, parts, detach: [], emptied: [] });
        await tx.run(cypher.get('graph/recompute-clusters'), { ...scope, ids: parts.map((p) => p.id), at: atInt });
      },
      { timeout: timeoutMs },
    );
  }
  await session.executeWrite(
    async (tx) => {
      await fenced(tx);
      if (leaving.length > 0 || detach.length > 0)
        await tx.run(cypher.get('graph/assign-clusters'), { ...scope, parts: [], detach, emptied: [id] });
      // Even when nothing else leaves: the member that made the split (a hub) left already.
      await tx.run(cypher.get('graph/recompute-clusters'), { ...scope, ids: [id], at: atInt });
      await tx.run(cypher.get('graph/split-done'), { ...scope, id });
    },
    { timeout: timeoutMs },
  );
  return steps.length + 1;
}
