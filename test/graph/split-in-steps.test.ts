// Large hub splits in steps, against the real Neo4j: a cluster too large to split in the
// transaction of the link that made the hub is split right after it, in transactions that each
// move a bounded number of members, through the same path as the graph writer (applyGraphOps);
// one cut short resumes from what is left, and meanwhile the members not yet moved read the
// cluster as it was before the split. The write transactions are watched through the driver.
import { expect } from 'chai';
import type { Driver, ManagedTransaction, Session } from 'neo4j-driver';
import { applyGraphOps, expiredScopes, expireLinks } from '../../src/graph/apply-graph-ops.js';
import type { CypherCatalog } from '../../src/graph/cypher-catalog.js';
import type { OutboxRow } from '../../src/graph/graph-outbox-store.js';
import { readClusterFacts, type GraphLink } from '../../src/graph/identity-graph.js';
import { SPLIT_IN_ONE_TRANSACTION, SPLIT_STEP } from '../../src/graph/split-in-steps.js';
import { aTenant } from '../support/fixtures.js';
import { rootGraphWriter } from '../support/root-hooks.js';
import { testDeps } from '../support/test-deps.js';

// Just past the bound: every account is linked through the one identifier only.
const MEMBERS = SPLIT_IN_ONE_TRANSACTION + 500;
const WIFI = 'split-in-steps';

type Scope = { tenantId: string; mode: string };

// The driver, with each write transaction noted: how many members its assign-clusters moved. The
// write numbered `failAt` fails before it runs.
function watched(graph: Driver, cypher: CypherCatalog, failAt?: number): { graph: Driver; moved: number[] } {
  const moved: number[] = [];
  const assign = cypher.get('graph/assign-clusters');
  const bound = <T extends object>(target: T, prop: string | symbol) => {
    const value = Reflect.get(target, prop) as unknown;
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
  };
  const proxy = new Proxy(graph, {
    get(target, prop) {
      if (prop !== 'session') return bound(target, prop);
      return (...args: Parameters<Driver['session']>) => {
        const session = target.session(...args);
        return new Proxy(session, {
          get(s, p) {
            if (p !== 'executeWrite') return bound(s, p);
            return (work: (tx: ManagedTransaction) => Promise<unknown>, config?: object) => {
              const at = moved.push(0) - 1;
              if (at + 1 === failAt) return Promise.reject(new Error('the writer stopped here (test)'));
              return (s as Session).executeWrite((tx) => {
                moved[at] = 0;
                return work(
                  new Proxy(tx, {
                    get(t, q) {
                      if (q !== 'run') return bound(t, q);
                      return (text: string, params?: { parts?: { nodes: string[] }[] }) => {
                        if (text === assign) moved[at]! += (params?.parts ?? []).reduce((n, part) => n + part.nodes.length, 0);
                        return t.run(text, params);
                      };
                    },
                  }),
                );
              }, config);
            };
          },
        });
      };
    },
  });
  return { graph: proxy, moved };
}

describe('large hub splits in steps', function () {
  this.timeout(120_000);
  const deps = testDeps();
  // These tests apply and resume the splits themselves; the test process's own graph writer would
  // find the unfinished split at its expiry sweep and run it at the same time, outside any lane.
  before(async () => rootGraphWriter().stop());
  after(async () => rootGraphWriter().start());
  let seq = 0;

  const linkRow = (scope: Scope, account: string, hub: number): OutboxRow => {
    seq += 1;
    const payload: GraphLink = {
      ...scope,
      eventId: `evt_${scope.tenantId}_${account}`,
      eventType: 'signup',
      at: Date.now(),
      account,
      ids: [{ kind: 'wifi', value: WIFI, links: true, hub, expiryMs: null }],
      card: null,
      cardCountry: null,
      hubThreshold: 25,
    };
    return { seq: String(seq), kind: 'link', payload };
  };

  // MEMBERS accounts in one cluster held by one wifi, and a confirmed-abuse mark on acct_0.
  const aFusedCluster = async (): Promise<Scope> => {
    const scope = { tenantId: (await aTenant(deps)).tenantId, mode: 'test' };
    for (let from = 0; from < MEMBERS; from += 500) {
      const rows = Array.from({ length: Math.min(500, MEMBERS - from) }, (_, i) => linkRow(scope, `acct_${from + i}`, MEMBERS + 10));
      await applyGraphOps(deps.graph, deps.cypher, rows, 60_000);
    }
    seq += 1;
    await applyGraphOps(
      deps.graph,
      deps.cypher,
      [
        {
          seq: String(seq),
          kind: 'mark',
          payload: {
            ...scope,
            key: 'feedback:external_user_id:acct_0:confirmed_abuse',
            at: Date.now(),
            anchorKind: 'account',
            anchorValue: 'acct_0',
            outcome: 'confirmed_abuse',
            codes: [],
          },
        },
      ],
      60_000,
    );
    return scope;
  };

  const clusters = async (scope: Scope) => {
    const { records } = await deps.graph.executeQuery(
      `MATCH (c:Cluster {tenantId: $tenantId, mode: $mode})
       RETURN count(c) AS clusters, max(c.accounts) AS largest, count(CASE WHEN c:Splitting THEN 1 END) AS splitting,
              [x IN collect(CASE WHEN c.confirmedAbuse THEN c END) | [(a:Account)-[:IN]->(x) | a.externalId]] AS abusive`,
      scope,
    );
    return records[0]!.toObject() as { clusters: number; largest: number; splitting: number; abusive: string[][] };
  };

  // Every account alone (the trigger's too), the mark with its subject only, nothing left to split.
  const splitCompletely = async (scope: Scope) => {
    expect(await clusters(scope)).to.deep.equal({ clusters: MEMBERS + 1, largest: 1, splitting: 0, abusive: [['acct_0']] });
  };

  it('splits a cluster too large for one transaction right after the link that made the hub, in steps of bounded size', async () => {
    const scope = await aFusedCluster();
    expect(await clusters(scope)).to.deep.include({ clusters: 1, largest: MEMBERS, splitting: 0 });
    // One more account than the wifi's hub threshold: it becomes a hub.
    const w = watched(deps.graph, deps.cypher);
    await applyGraphOps(w.graph, deps.cypher, [linkRow(scope, 'acct_trigger', MEMBERS)], 30_000);
    expect(Math.max(...w.moved), 'members moved by one transaction').to.be.at.most(SPLIT_STEP);
    // All but the one that keeps the cluster's id (the trigger's account starts a cluster of its own).
    expect(
      w.moved.reduce((a, b) => a + b, 0),
      'members moved in all',
    ).to.equal(MEMBERS - 1);
    await splitCompletely(scope);
  });

  it('resumes a split cut short, and meanwhile the members not yet moved read the cluster as before the split', async () => {
    const scope = await aFusedCluster();
    // The link's transaction commits, one step moves its members, the next never runs.
    const w = watched(deps.graph, deps.cypher, 3);
    let failed: unknown;
    await applyGraphOps(w.graph, deps.cypher, [linkRow(scope, 'acct_trigger', MEMBERS)], 30_000).catch((err: unknown) => {
      failed = err;
    });
    expect(String(failed)).to.contain('the writer stopped here');
    const midway = await clusters(scope);
    expect(midway.splitting).to.equal(1);
    expect(midway.clusters).to.be.within(2, MEMBERS);
    // An account still in the cluster being split reads its facts as they were: every account,
    // and the mark.
    const { records } = await deps.graph.executeQuery(
      "MATCH (a:Account {tenantId: $tenantId, mode: $mode})-[:IN]->(:Splitting) WHERE a.externalId <> 'acct_0' RETURN a.externalId AS id LIMIT 1",
      scope,
    );
    const waiting = records[0]!.get('id') as string;
    const facts = await readClusterFacts(
      deps.graph,
      deps.cypher,
      { ...(linkRow(scope, waiting, 25).payload as GraphLink), ids: [] },
      10_000,
    );
    expect(facts.accounts).to.equal(MEMBERS);
    expect(facts.confirmedAbuse).to.equal(true);
    // The writer's sweep finds the scope and finishes the split.
    expect((await expiredScopes(deps.graph, deps.cypher, Date.now())).map((s) => s.tenantId)).to.include(scope.tenantId);
    await expireLinks(deps.graph, deps.cypher, scope, Date.now(), 30_000);
    await splitCompletely(scope);
  });
});
