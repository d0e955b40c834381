// The console's reads of the identity graph (cypher/console/): which cluster an event or an
// account is in, and one bounded page of a cluster to draw. Read-only sessions with a timeout;
// tenant and mode always come from the analyst's session, never from the request.
import neo4j from 'neo4j-driver';
import type { Scope } from '../scope.js';
import type { ConsoleDeps } from './console-deps.js';
import type { ClusterFacts, ClusterPicture, PictureEvent, PictureNode } from './generated/console-wire.js';

type GraphDeps = Pick<ConsoleDeps, 'graph' | 'cypher' | 'config'>;

// "A few hundred nodes" at most per page: members, plus hubs and events around them.
export const PICTURE_LIMITS = { limit: 200, hubLimit: 50, eventLimit: 100 };

async function read(deps: GraphDeps, name: string, params: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const { records } = await deps.graph.executeQuery(deps.cypher.get(name), params, {
    routing: neo4j.routing.READ,
    transactionConfig: { timeout: deps.config.consoleQueryTimeoutMs },
  });
  return records.map((r) => r.toObject());
}

export async function eventClusterId(deps: GraphDeps, scope: Scope, eventId: string): Promise<string | undefined> {
  const rows = await read(deps, 'console/event-cluster', { ...scope, eventId });
  return rows[0]?.clusterId as string | undefined;
}

export async function accountClusterId(deps: GraphDeps, scope: Scope, account: string): Promise<string | undefined> {
  const rows = await read(deps, 'console/account-cluster', { ...scope, account });
  return rows[0]?.clusterId as string | undefined;
}

// The graph's page of a cluster (cypher/console/cluster-picture.cypher): the wire's picture before
// the route adds each event's verdict and review, the emails as received, and where it starts.
export interface GraphPicture extends Omit<ClusterPicture, 'nodes' | 'events' | 'skip'> {
  nodes: Omit<PictureNode, 'received'>[];
  events: Omit<PictureEvent, 'verdict' | 'review'>[];
}

export async function clusterFacts(deps: GraphDeps, scope: Scope, clusterId: string): Promise<ClusterFacts | undefined> {
  const rows = await read(deps, 'console/cluster-facts', { ...scope, clusterId });
  return rows[0]?.cluster as ClusterFacts | undefined;
}

export async function clusterPicture(deps: GraphDeps, scope: Scope, clusterId: string, skip: number): Promise<GraphPicture | undefined> {
  const rows = await read(deps, 'console/cluster-picture', {
    ...scope,
    clusterId,
    skip: neo4j.int(skip),
    limit: neo4j.int(PICTURE_LIMITS.limit),
    hubLimit: neo4j.int(PICTURE_LIMITS.hubLimit),
    eventLimit: neo4j.int(PICTURE_LIMITS.eventLimit),
  });
  return rows[0] as GraphPicture | undefined;
}

export interface ReviewCluster {
  clusterId: string;
  accounts: number;
  confirmedAbuse: boolean;
  // The newest confirmed_abuse mark on the cluster made after the review was queued.
  confirmedAt: number | null;
}

// The cluster of each queued review's event, for the queue's sizes, filter and marker.
export async function reviewClusters(
  deps: GraphDeps,
  scope: Scope,
  reviews: { eventId: string; queuedAt: Date }[],
): Promise<Map<string, ReviewCluster>> {
  if (reviews.length === 0) return new Map();
  const rows = await read(deps, 'console/review-clusters', {
    ...scope,
    reviews: reviews.map((r) => ({ eventId: r.eventId, queuedAt: r.queuedAt.getTime() })),
  });
  return new Map(
    rows.map((r) => [
      r.eventId as string,
      {
        clusterId: r.clusterId as string,
        accounts: Number(r.accounts),
        confirmedAbuse: Boolean(r.confirmedAbuse),
        confirmedAt: r.confirmedAt === null ? null : Number(r.confirmedAt),
      },
    ]),
  );
}

// A cluster the accounts first seen in a window made (every account new) or grew, with how many
// of its accounts are new and whether a confirmed abuse mark stands on it.
export interface ClusterGrowth {
  id: string;
  accounts: number;
  fresh: number;
  change: 'made' | 'grown';
  confirmedAbuse: boolean;
}

// The clusters the accounts first seen in a window made or grew.
export async function clusterGrowth(deps: GraphDeps, scope: Scope, accounts: string[]): Promise<ClusterGrowth[]> {
  if (accounts.length === 0) return [];
  const rows = await read(deps, 'console/cluster-growth', { ...scope, accounts });
  return rows.map((r) => {
    const [n, fresh] = [Number(r.accounts), Number(r.fresh)];
    return {
      id: r.clusterId as string,
      accounts: n,
      fresh,
      change: fresh >= n ? 'made' : 'grown',
      confirmedAbuse: r.confirmedAbuse === true,
    };
  });
}
