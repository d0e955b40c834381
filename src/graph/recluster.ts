// Clusters recomputed as the connected parts of their live links (docs/graph.md, "Splits"), run
// by the graph writer inside its fenced transaction, in the lane's order: after an identifier
// became a hub, after links expired, after a mark was retracted, and for `doorman graph
// recluster` (a whole scope, after a change of the link policy). It reads the members and their
// live links (cypher/graph/cluster-members; scope-members for a whole scope), finds the connected
// parts in this process (union-find), moves only the members whose part changed (cypher/graph/assign-clusters) and
// recomputes the facts of every cluster it touched from what lies inside it
// (cypher/graph/recompute-clusters), so each part keeps only the marks about it.
import neo4j, { type ManagedTransaction } from 'neo4j-driver';
import { newId } from '../db/new-id.js';
import type { CypherCatalog } from './cypher-catalog.js';

export interface ReclusterResult {
  clustersBefore: number;
  clustersAfter: number;
  // Clusters whose members ended in more than one part.
  split: number;
  // Parts that gathered the members of more than one cluster.
  merged: number;
}

export interface MemberRow {
  node: string;
  account: boolean;
  links: boolean;
  cluster: string | null;
  linked: string[];
  anonymous: string[];
}

// Shared with graph-model.ts (the checker's parts are found the same way).
export class UnionFind {
  private readonly parent = new Map<string, string>();
  add(x: string) {
    if (!this.parent.has(x)) this.parent.set(x, x);
  }
  find(x: string): string {
    let root = x;
    while (this.parent.get(root) !== root) root = this.parent.get(root)!;
    let at = x;
    while (at !== root) {
      const next = this.parent.get(at)!;
      this.parent.set(at, root);
      at = next;
    }
    return root;
  }
  union(a: string, b: string) {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(ra, rb);
  }
}

export interface Part {
  id: string;
  nodes: string[];
}

// The pure step: members and their live links in, parts out. Each part keeps the id of the old
// cluster most of its members came from (the largest part first), so an unchanged cluster keeps
// its id and writes nothing; the other parts get new ids.
export function partsOf(
  rows: MemberRow[],
  idFor: () => string = () => newId('clu'),
): { parts: Part[]; changed: Part[]; detach: string[]; result: ReclusterResult } {
  const members = rows.filter((r) => r.links);
  const inSet = new Set(members.map((r) => r.node));
  const uf = new UnionFind();
  const byEvent = new Map<string, string>();
  for (const r of members) uf.add(r.node);
  for (const r of members) {
    for (const i of r.linked) if (inSet.has(i)) uf.union(r.node, i);
    for (const e of r.anonymous) {
      const first = byEvent.get(e);
      if (first === undefined) byEvent.set(e, r.node);
      else uf.union(first, r.node);
    }
  }
  const groups = new Map<string, MemberRow[]>();
  for (const r of members) {
    const root = uf.find(r.node);
    const g = groups.get(root);
    if (g) g.push(r);
    else groups.set(root, [r]);
  }
  const sorted = [...groups.values()].sort((a, b) => b.length - a.length);
  const before = new Map<string, number>();
  for (const r of rows) if (r.cluster !== null) before.set(r.cluster, (before.get(r.cluster) ?? 0) + 1);
  const taken = new Set<string>();
  const partsOfOld = new Map<string, number>();
  const parts: Part[] = [];
  const changed: Part[] = [];
  let merged = 0;
  for (const group of sorted) {
    const counts = new Map<string, number>();
    for (const r of group) if (r.cluster !== null) counts.set(r.cluster, (counts.get(r.cluster) ?? 0) + 1);
    for (const old of counts.keys()) partsOfOld.set(old, (partsOfOld.get(old) ?? 0) + 1);
    if (counts.size > 1) merged += 1;
    const best = [...counts.entries()].filter(([id]) => !taken.has(id)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
    const id = best ?? idFor();
    taken.add(id);
    const part = { id, nodes: group.map((r) => r.node) };
    parts.push(part);
    // Unchanged: every member already in this cluster, and no other member of it elsewhere.
    const unchanged =
      best !== undefined && counts.size === 1 && group.every((r) => r.cluster === best) && before.get(best) === group.length;
    if (!unchanged) changed.push(part);
  }
  const detach = rows.filter((r) => !r.links && r.cluster !== null).map((r) => r.node);
  const split = [...partsOfOld.values()].filter((n) => n > 1).length;
  return { parts, changed, detach, result: { clustersBefore: before.size, clustersAfter: parts.length, split, merged } };
}

// Recomputes the given clusters (or, with `clusterIds` null, the whole scope), and the facts of
// `alsoRecompute` (clusters whose marks changed). Returns what changed.
export async function recluster(
  tx: ManagedTransaction,
  cypher: CypherCatalog,
  scope: { tenantId: string; mode: string },
  clusterIds: string[] | null,
  at: number,
  alsoRecompute: string[] = [],
): Promise<ReclusterResult> {
  const { tenantId, mode } = scope;
  const atInt = neo4j.int(at);
  const empty: ReclusterResult = { clustersBefore: 0, clustersAfter: 0, split: 0, merged: 0 };
  let result = empty;
  const touched = new Set(alsoRecompute);
  if (clusterIds === null || clusterIds.length > 0) {
    const read =
      clusterIds === null
        ? await tx.run(cypher.get('graph/scope-members'), { tenantId, mode, at: atInt })
        : await tx.run(cypher.get('graph/cluster-members'), { tenantId, mode, ids: clusterIds, at: atInt });
    const rows = read.records.map((r) => r.toObject() as MemberRow);
    const { changed, detach, result: counted } = partsOf(rows);
    result = counted;
    const olds = [...new Set(rows.map((r) => r.cluster).filter((c): c is string => c !== null))];
    if (changed.length > 0 || detach.length > 0) {
      await tx.run(cypher.get('graph/assign-clusters'), { tenantId, mode, parts: changed, detach, emptied: olds });
      for (const p of changed) touched.add(p.id);
      // A cluster that lost a member but kept its id.
      for (const id of olds) touched.add(id);
    }
    // Clusters named for a split lost a member before this was called (a hub, an expired link, a
    // forget): what stays may be one part, unchanged here, and still carry the facts of what left
    // (a mark on an event reached only through the new hub), so its facts are recomputed too.
    if (clusterIds !== null) {
      for (const id of clusterIds) touched.add(id);
      // One whose last member left (a hub that was all it held) goes.
      const unread = clusterIds.filter((id) => !olds.includes(id));
      if (unread.length > 0) await tx.run(cypher.get('graph/assign-clusters'), { tenantId, mode, parts: [], detach: [], emptied: unread });
    }
  }
  if (touched.size > 0) await tx.run(cypher.get('graph/recompute-clusters'), { tenantId, mode, ids: [...touched], at: atInt });
  return result;
}
