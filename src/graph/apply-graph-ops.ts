// Applies a batch of outbox rows to Neo4j in seq order, in one write transaction: each run of
// consecutive rows of one kind is one UNWIND statement (graph/apply-links, graph/apply-marks,
// graph/apply-forgets); a run of links also records each scope's last link applied
// (graph/stamp-applied-links: the verdict's fresh read compares it). A scope delete (graph
// rebuild) is the exception: it empties the scope in transactions of its own, 5,000 nodes each
// (graph/delete-scope-batch), between the rows before and after it. A batch of the graph writer
// carries its lane's fence (lane and epoch): every transaction first passes the lane's fence
// node (writer/fence-lane) or writes nothing.
// Clusters follow the evidence (docs/graph.md, "Splits"): the clusters an identifier left when it
// became a hub are split in the same transaction as the links that made it one, or, larger than
// split-in-steps.ts's bound, in steps right after it; a retraction (graph/apply-retractions)
// recomputes its clusters' facts; a recluster recomputes a whole scope under its link policy
// (graph/apply-link-policy, then recluster.ts) and records what changed. The accounts a
// confirmed_abuse mark is about carry its time (graph/recompute-account-marks), set after the marks
// and retractions that change it, and for the whole scope after a forget or a recluster.
import neo4j, { type Driver, type Integer, type ManagedTransaction, type Session } from 'neo4j-driver';
import { newId } from '../db/new-id.js';
import type { CypherCatalog } from './cypher-catalog.js';
import type { GraphForget, GraphMark, GraphRecluster, GraphRetract, OutboxRow } from './graph-outbox-store.js';
import type { GraphLink } from './identity-graph.js';
import { recluster } from './recluster.js';
import { deferLargeSplits, finishSplits } from './split-in-steps.js';

type Scope = { tenantId: string; mode: string };
type ScopedId = Scope & { id: string };

// Recomputes clusters grouped by scope (a batch may hold several scopes of one lane). A cluster
// too large to split in this transaction is marked and split afterwards in steps
// (split-in-steps.ts); the scopes that hold one are added to `deferred`.
async function reclusterByScope(
  tx: ManagedTransaction,
  cypher: CypherCatalog,
  split: ScopedId[],
  recompute: ScopedId[],
  at: number,
  deferred: Map<string, Scope>,
): Promise<void> {
  const scopes = new Map<string, { scope: { tenantId: string; mode: string }; split: Set<string>; recompute: Set<string> }>();
  const entry = (x: ScopedId) => {
    const key = `${x.tenantId}\0${x.mode}`;
    let e = scopes.get(key);
    if (!e) scopes.set(key, (e = { scope: { tenantId: x.tenantId, mode: x.mode }, split: new Set(), recompute: new Set() }));
    return e;
  };
  for (const x of split) entry(x).split.add(x.id);
  for (const x of recompute) entry(x).recompute.add(x.id);
  for (const [key, e] of scopes) {
    const later = new Set(await deferLargeSplits(tx, cypher, e.scope, [...e.split], at));
    if (later.size > 0) deferred.set(key, e.scope);
    await recluster(
      tx,
      cypher,
      e.scope,
      [...e.split].filter((id) => !later.has(id)),
      at,
      [...e.recompute],
    );
  }
}

// A whole scope under its link policy; the counts are recorded for `doorman graph recluster`.
// Sets `confirmedAt` anew (cypher/graph/recompute-account-marks) on the accounts the given marks
// are about, or on every account of the given scopes that holds it or that a standing mark is about.
async function recomputeAccountMarks(
  tx: ManagedTransaction,
  cypher: CypherCatalog,
  seeds: { marks?: { tenantId: string; mode: string; key: string }[]; scopes?: Scope[] },
): Promise<void> {
  const marks = (seeds.marks ?? []).map(({ tenantId, mode, key }) => ({ tenantId, mode, key }));
  const scopes = [...new Map((seeds.scopes ?? []).map(({ tenantId, mode }) => [`${tenantId}\0${mode}`, { tenantId, mode }])).values()];
  if (marks.length === 0 && scopes.length === 0) return;
  await tx.run(cypher.get('graph/recompute-account-marks'), { marks, scopes });
}

async function reclusterScope(tx: ManagedTransaction, cypher: CypherCatalog, r: GraphRecluster): Promise<void> {
  const at = neo4j.int(r.at);
  const int = (p: GraphRecluster['default']) => ({
    ...p,
    hub: neo4j.int(p.hub),
    expiryMs: p.expiryMs === null ? null : neo4j.int(p.expiryMs),
  });
  await tx.run(cypher.get('graph/apply-link-policy'), {
    tenantId: r.tenantId,
    mode: r.mode,
    at,
    default: int(r.default),
    kinds: Object.fromEntries(Object.entries(r.kinds).map(([k, v]) => [k, int(v)])),
  });
  const result = await recluster(tx, cypher, r, null, r.at, r.recompute ?? []);
  await recomputeAccountMarks(tx, cypher, { scopes: [r] });
  await tx.run(cypher.get('graph/record-recluster'), {
    tenantId: r.tenantId,
    mode: r.mode,
    id: r.id,
    before: neo4j.int(result.clustersBefore),
    after: neo4j.int(result.clustersAfter),
    split: neo4j.int(result.split),
    merged: neo4j.int(result.merged),
  });
}

// Links whose time ran out in one scope: marked expired, their clusters split (graph writer,
// about every 30 s, for the scopes of its lanes).
export async function expireLinks(
  graph: Driver,
  cypher: CypherCatalog,
  scope: { tenantId: string; mode: string },
  at: number,
  timeoutMs: number,
  fence?: LaneFence,
): Promise<number> {
  const session = graph.session({ defaultAccessMode: neo4j.session.WRITE });
  try {
    const fenced = async (tx: ManagedTransaction) => {
      if (fence) await passFence(tx, cypher, fence);
    };
    const expired = await session.executeWrite(
      async (tx) => {
        await fenced(tx);
        const { records } = await tx.run(cypher.get('graph/expire-links'), { ...scope, at: neo4j.int(at) });
        const ids = (records[0]?.get('clusters') ?? []) as string[];
        const later = new Set(await deferLargeSplits(tx, cypher, scope, ids, at));
        if (ids.length > 0)
          await recluster(
            tx,
            cypher,
            scope,
            ids.filter((id) => !later.has(id)),
            at,
          );
        return Number(records[0]?.get('expired') ?? 0);
      },
      { timeout: timeoutMs },
    );
    // Large splits, those just marked and any left unfinished (the sweep finds their scopes).
    await finishSplits(session, cypher, scope, timeoutMs, fenced);
    return expired;
  } finally {
    await session.close();
  }
}

// The scopes with links due to expire (cheap when none are).
export async function expiredScopes(graph: Driver, cypher: CypherCatalog, at: number): Promise<{ tenantId: string; mode: string }[]> {
  const { records } = await graph.executeQuery(cypher.get('writer/expired-scopes'), { at: neo4j.int(at) }, { routing: neo4j.routing.READ });
  return records.map((r) => ({ tenantId: r.get('tenantId') as string, mode: r.get('mode') as string }));
}

async function passFence(tx: ManagedTransaction, cypher: CypherCatalog, fence: LaneFence): Promise<void> {
  const { records } = await tx.run(cypher.get('writer/fence-lane'), {
    key: fence.key,
    lane: neo4j.int(fence.lane),
    epoch: neo4j.int(fence.epoch),
  });
  if (records[0]?.get('passed') !== true) throw new StaleLaneError(fence, Number(records[0]?.get('fence') ?? Number.NaN));
}

function runsOfOneKind(rows: OutboxRow[]): OutboxRow[][] {
  const runs: OutboxRow[][] = [];
  for (const row of rows) {
    const last = runs.at(-1);
    if (last && last[0]!.kind === row.kind) last.push(row);
    else runs.push([row]);
  }
  return runs;
}

// Per scope, the seq of its last link among these rows (graph/stamp-applied-links).
function lastLinkPerScope(rows: OutboxRow[]): { tenantId: string; mode: string; seq: Integer }[] {
  const last = new Map<string, { tenantId: string; mode: string; seq: bigint }>();
  for (const row of rows) {
    const { tenantId, mode } = row.payload as GraphLink;
    const key = `${tenantId}\0${mode}`;
    const seq = BigInt(row.seq);
    if ((last.get(key)?.seq ?? -1n) < seq) last.set(key, { tenantId, mode, seq });
  }
  return [...last.values()].map((x) => ({ ...x, seq: neo4j.int(x.seq.toString()) }));
}

export interface LaneFence {
  lane: number;
  epoch: number;
  // The lane's fence node in Neo4j (graph_lane_epochs.fence_key: one per lane and database).
  key: string;
}

// Thrown when the lane's fence in Neo4j is past this batch's epoch: a newer owner has written,
// or the epochs in Postgres fell behind the graph's (a restored backup). `seen` is the fence's
// epoch; only a writer that still holds the lane's lock may move past it (graph-writer.ts).
export class StaleLaneError extends Error {
  constructor(
    readonly fence: LaneFence,
    readonly seen: number,
  ) {
    super(`lane ${fence.lane}: epoch ${fence.epoch} is behind the lane's fence (${seen})`);
    this.name = 'StaleLaneError';
  }
}

const SCOPE_DELETE_BATCH = 5000;

export async function applyGraphOps(
  graph: Driver,
  cypher: CypherCatalog,
  rows: OutboxRow[],
  timeoutMs: number,
  fence?: LaneFence,
): Promise<void> {
  const session = graph.session({ defaultAccessMode: neo4j.session.WRITE });
  // Thrown inside the work: the transaction rolls back, and executeWrite does not retry it.
  const fenced = async (tx: ManagedTransaction) => {
    if (fence) await passFence(tx, cypher, fence);
  };
  try {
    let from = 0;
    while (from < rows.length) {
      const at = rows.findIndex((r, i) => i >= from && r.kind === 'delete_scope');
      const until = at < 0 ? rows.length : at;
      if (until > from) {
        const deferred = await applyRuns(session, cypher, rows.slice(from, until), timeoutMs, fenced);
        // Clusters too large to split in the batch's transaction, split now, in steps, before
        // anything after them.
        for (const scope of deferred) await finishSplits(session, cypher, scope, timeoutMs, fenced);
      }
      if (at < 0) break;
      const { tenantId, mode } = (rows[at] as Extract<OutboxRow, { kind: 'delete_scope' }>).payload;
      for (;;) {
        const deleted = await session.executeWrite(
          async (tx) => {
            await fenced(tx);
            const { records } = await tx.run(cypher.get('graph/delete-scope-batch'), {
              tenantId,
              mode,
              limit: neo4j.int(SCOPE_DELETE_BATCH),
            });
            return Number(records[0]?.get('deleted') ?? 0);
          },
          { timeout: timeoutMs },
        );
        if (deleted === 0) break;
      }
      from = at + 1;
    }
  } finally {
    await session.close();
  }
}

// Returns the scopes whose clusters were marked to split in steps.
async function applyRuns(
  session: Session,
  cypher: CypherCatalog,
  rows: OutboxRow[],
  timeoutMs: number,
  fenced: (tx: ManagedTransaction) => Promise<void>,
): Promise<Scope[]> {
  return session.executeWrite(
    async (tx) => {
      await fenced(tx);
      // Filled anew by each attempt of this transaction.
      const deferred = new Map<string, Scope>();
      for (const run of runsOfOneKind(rows)) {
        if (run[0]!.kind === 'link') {
          // A cluster that a link creates gets a fresh id; a re-applied link finds its members
          // in a cluster already and creates none.
          const links = run.map((r) => r.payload as GraphLink);
          const { records } = await tx.run(cypher.get('graph/apply-links'), {
            links: links.map((l) => ({ ...l, clusterId: newId('clu') })),
          });
          const split = (records[0]?.get('split') ?? []) as ScopedId[];
          if (split.length > 0) await reclusterByScope(tx, cypher, split, [], Math.max(...links.map((l) => l.at)), deferred);
          await tx.run(cypher.get('graph/stamp-applied-links'), { scopes: lastLinkPerScope(run) });
        } else if (run[0]!.kind === 'retract') {
          const retractions = run.map((r) => r.payload as GraphRetract);
          const { records } = await tx.run(cypher.get('graph/apply-retractions'), { retractions });
          const clusters = (records[0]?.get('clusters') ?? []) as ScopedId[];
          if (clusters.length > 0) await reclusterByScope(tx, cypher, [], clusters, Math.max(...retractions.map((r) => r.at)), deferred);
          await recomputeAccountMarks(tx, cypher, { marks: retractions });
        } else if (run[0]!.kind === 'recluster') {
          for (const r of run) await reclusterScope(tx, cypher, r.payload as GraphRecluster);
        } else if (run[0]!.kind === 'mark') {
          const marks = run.map((r) => r.payload as GraphMark);
          await tx.run(cypher.get('graph/apply-marks'), { marks });
          await recomputeAccountMarks(tx, cypher, { marks: marks.filter((m) => m.outcome === 'confirmed_abuse') });
        } else if (run[0]!.kind === 'forget') {
          const forgets = run.map((r) => r.payload as { at: number });
          const { records } = await tx.run(cypher.get('graph/apply-forgets'), { forgets });
          // What went may have held clusters together: they are split like after a hub.
          const trimmed = (records[0]?.get('trimmed') ?? []) as ScopedId[];
          if (trimmed.length > 0) await reclusterByScope(tx, cypher, trimmed, [], Math.max(...forgets.map((f) => f.at)), deferred);
          // What went may have been what a mark was about (an event, a link to its email, the mark).
          await recomputeAccountMarks(tx, cypher, { scopes: run.map((r) => r.payload as GraphForget) });
        }
      }
      return [...deferred.values()];
    },
    { timeout: timeoutMs },
  );
}

// A statement Neo4j refused as invalid (not an outage, not a transient conflict): retrying the
// same row cannot succeed, so it is set aside instead of blocking its lane.
export function isInvalidOp(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return (
    code.startsWith('Neo.ClientError.') && !code.startsWith('Neo.ClientError.Security.') && !code.startsWith('Neo.ClientError.Transaction.')
  );
}

// Plans the writer's statements with empty batches (warm-up): Neo4j caches their plans, nothing
// is written.
export async function planGraphWrites(graph: Driver, cypher: CypherCatalog): Promise<void> {
  await graph.executeQuery(cypher.get('graph/apply-links'), { links: [] });
  await graph.executeQuery(cypher.get('graph/apply-marks'), { marks: [] });
  await graph.executeQuery(cypher.get('graph/stamp-applied-links'), { scopes: [] });
}
