// The identity graph's writes from the verdict path: link an event (one round trip) and get its
// cluster's facts back. Parameters are plain data so a repair job can replay them verbatim.
import type { Driver } from 'neo4j-driver';
import type { Scope } from '../db/queryable.js';
import type { CypherCatalog } from './cypher-catalog.js';
import type { GraphIdentifier } from './event-identifiers.js';

export interface LinkParams {
  tenantId: string;
  mode: string;
  eventId: string;
  eventType: string;
  at: number;
  account: string | null;
  ids: GraphIdentifier[];
  card: string | null;
  cardCountry: string | null;
  hubThreshold: number;
  clusterId: string;
  newEvent: boolean;
}

export interface ClusterFacts {
  clusterId: string | null;
  accounts: number;
  confirmedAbuse: boolean;
  falsePositive: boolean;
  chargebacks: number;
  convertedAt: number | null;
  lastTrialStartAt: number | null;
  suppressed: string[];
  distinctCards24h: number;
  distinctCountries24h: number;
  accountEvents: number;
  deviceSeen: boolean;
  hubs: string[];
}

const MAX_ATTEMPTS = 4;

// Worth another immediate try: deadlocks and lock timeouts between concurrent merges (transient),
// and a cluster that a concurrent merge deleted after this statement read it. An unreachable
// server is not retried here: the verdict goes on without the graph and the repair job retries.
function retryable(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'ServiceUnavailable' || code === 'SessionExpired') return false;
  return code.startsWith('Neo.TransientError.') || code === 'Neo.ClientError.Statement.EntityNotFound'
    || code === 'Neo.ClientError.Schema.ConstraintValidationFailed';
}

export function linkParams(scope: Scope, p: Omit<LinkParams, 'tenantId' | 'mode'>): LinkParams {
  return { tenantId: scope.tenantId, mode: scope.mode, ...p };
}

export async function linkEvent(graph: Driver, cypher: CypherCatalog, params: LinkParams, timeoutMs?: number): Promise<ClusterFacts> {
  const query = cypher.get('graph/link-event');
  for (let attempt = 1; ; attempt++) {
    const session = graph.session();
    try {
      // One statement in an auto-commit transaction: one round trip (no BEGIN/COMMIT messages).
      // It is atomic on its own; retrying is done here, not by the driver.
      const result = await session.run(query, params, timeoutMs ? { timeout: timeoutMs } : undefined);
      const record = result.records[0];
      if (!record) throw new Error('link-event returned no row');
      return record.toObject() as ClusterFacts;
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !retryable(err)) throw err;
      // A little jitter so the two sides of a deadlock do not collide again at once.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    } finally {
      await session.close();
    }
  }
}
