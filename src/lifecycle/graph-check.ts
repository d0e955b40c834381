// What one run of `doorman graph verify` carries from step to step (src/lifecycle/verify-graph.ts):
// the scope's expected graph as it is folded, the differences found so far (the first `limit`
// listed, the rest counted), and what a repair would queue for them. Also the steps' one way of
// reading the graph: a READ session streaming a Cypher file's rows, so memory holds a page at a time.
import neo4j, { type Driver, type Record as Neo4jRecord } from 'neo4j-driver';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { Scope } from '../scope.js';
import type { GraphLinkPolicy } from '../engine/policy.js';
import { GraphModel } from '../graph/graph-model.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import type { GraphOp } from '../graph/graph-outbox-store.js';
import type { GraphLink } from '../graph/identity-graph.js';
import { linkPolicyInForce, type ProjectionDeps } from './graph-projection.js';

export type DifferenceType =
  | 'missing_node'
  | 'extra_node'
  | 'missing_link'
  | 'extra_link'
  | 'link_state'
  | 'wrong_hub'
  | 'wrong_cluster'
  | 'wrong_facts'
  | 'missing_mark'
  | 'stale_mark';

export interface GraphDifference {
  type: DifferenceType;
  // What it is about: 'event', 'account', 'identifier', 'cluster', 'mark'; an edge: 'BY', 'USED', 'LINKED'.
  what: string;
  subject: string;
  expected?: unknown;
  found?: unknown;
}

// What a verification needs: the projection's, and the graph to compare it with. The composition
// root (src/deps.ts) passes its Deps.
export interface VerifyDeps extends ProjectionDeps {
  graph: Driver;
  cypher: CypherCatalog;
  config: Pick<Config, 'hubThreshold' | 'graphExpirySweepMs'>;
  clock: Clock;
  // Only a repair writes (through the outbox).
  graphOutbox?: GraphOutbox;
}

// What repair queues: links of events found different, marks missing, keys to retract, what the
// graph holds that Postgres no longer does, and clusters whose facts must be recomputed.
export interface RepairWork {
  relink: Map<string, GraphLink>;
  remark: GraphOp[];
  retract: string[];
  forgetEvents: string[];
  forgetAccounts: string[];
  forgetIds: { kind: string; value: string }[];
  // Accounts whose links differ: their events are linked again.
  relinkAccounts: Set<string>;
  recompute: Set<string>;
}

export interface GraphCheck {
  readonly deps: VerifyDeps;
  readonly scope: Scope;
  readonly linkPolicy: GraphLinkPolicy | undefined;
  // What the scope's graph must hold, folded from the projection as its pages are read.
  readonly model: GraphModel;
  readonly now: number;
  readonly graceMs: number;
  readonly differences: GraphDifference[];
  // Differences past the first `limit` are counted, not listed.
  more: number;
  readonly differ: (d: GraphDifference) => void;
  readonly repair: RepairWork;
}

export async function startGraphCheck(deps: VerifyDeps, scope: Scope, limit: number): Promise<GraphCheck> {
  const now = deps.clock.now().getTime();
  // A link whose time ran out since the writer's last sweep may still be live in the graph.
  const graceMs = 2 * deps.config.graphExpirySweepMs + 5000;
  const differences: GraphDifference[] = [];
  const linkPolicy = await linkPolicyInForce(deps, scope);
  const check: GraphCheck = {
    deps,
    scope,
    linkPolicy,
    model: new GraphModel(),
    now,
    graceMs,
    differences,
    more: 0,
    differ: (d) => {
      if (differences.length < limit) differences.push(d);
      else check.more += 1;
    },
    repair: {
      relink: new Map(),
      remark: [],
      retract: [],
      forgetEvents: [],
      forgetAccounts: [],
      forgetIds: [],
      relinkAccounts: new Set(),
      recompute: new Set(),
    },
  };
  return check;
}

// A number the graph returned (a Neo4j integer or a float), or null when it holds none.
export const num = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

// Whether the graph holds a link (or an anonymous use) live: not expired by the writer's sweep,
// and not past its time.
export const liveInGraph = (expiresAt: unknown, expiredAt: unknown, now: number): boolean =>
  num(expiredAt) === null && (num(expiresAt) === null || num(expiresAt)! > now);

export async function* readGraph(
  deps: Pick<VerifyDeps, 'graph' | 'cypher'>,
  name: string,
  params: Record<string, unknown>,
): AsyncGenerator<Neo4jRecord> {
  const session = deps.graph.session({ defaultAccessMode: neo4j.session.READ, fetchSize: 1000 });
  try {
    for await (const record of session.run(deps.cypher.get(name), params)) yield record;
  } finally {
    await session.close();
  }
}
