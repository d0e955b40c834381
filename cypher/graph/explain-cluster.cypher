// explain-cluster: why a cluster is what it is (`doorman graph explain`, the console's evidence):
// the cluster to explain and every mark on it, standing or taken back, each with its subject and
// the shortest path of live links from where the explanation starts to the mark's subject (the
// kinds of the identifiers on it, in path order). It starts from an event ($eventId: the event's
// account, or without one the identifiers it used), from an account ($account: an external user
// id), or from a cluster alone ($clusterId: its marks without paths); the other two are null.
// Read-only.
// Parameters: $tenantId, $mode, $eventId, $account, $clusterId.
// Returns at most one row: clusterId, accounts, marks (list of {key, outcome, at (epoch ms),
//   retractedAt (epoch ms or null), subject ('event' | 'account' | <identifier kind>), subjectKey
//   and targetKey (the subject, and the account or identifier a path to it ends at, as the
//   console's cluster picture keys them: 'event:<id>', 'account:<id>', 'id:<kind>:<value>'), via
//   (list or null), path (the path's nodes as the picture keys them; null without a live path)}).
OPTIONAL MATCH (e:Event {tenantId: $tenantId, mode: $mode, id: $eventId})
OPTIONAL MATCH (e)-[:BY]->(ea:Account)
OPTIONAL MATCH (e)-[:USED]->(i:Identifier) WHERE coalesce(i.linking, true) AND NOT i.hub
WITH ea, collect(i) AS ids
OPTIONAL MATCH (named:Account {tenantId: $tenantId, mode: $mode, externalId: $account})
WITH CASE WHEN named IS NOT NULL THEN [named] WHEN ea IS NOT NULL THEN [ea] + ids ELSE ids END AS starts
CALL {
  WITH starts
  UNWIND starts AS s
  MATCH (s)-[:IN]->(c:Cluster)
  RETURN c
  UNION
  WITH starts
  MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: $clusterId})
  RETURN c
}
WITH starts, c ORDER BY c.accounts DESC LIMIT 1
CALL {
  WITH c
  MATCH (m)-[:IN]->(c)
  OPTIONAL MATCH (ev:Event)-[:BY|USED]->(m) WHERE m:Account OR NOT EXISTS { (ev)-[:BY]->(:Account) }
  WITH collect(DISTINCT m) AS members, collect(DISTINCT ev) AS events
  UNWIND members + events AS x
  MATCH (f:Feedback)-[:ON]->(x)
  RETURN collect(DISTINCT {f: f, x: x}) AS found
}
CALL {
  WITH starts, found
  UNWIND found AS fx
  WITH starts, fx.f AS f, fx.x AS x
  CALL {
    WITH x
    OPTIONAL MATCH (x:Event)-[:BY]->(xa:Account)
    OPTIONAL MATCH (x:Event)-[:USED]->(xi:Identifier) WHERE xa IS NULL AND coalesce(xi.linking, true) AND NOT xi.hub
    WITH x, xa, collect(xi) AS used
    RETURN CASE WHEN x:Event THEN coalesce(xa, head(used)) ELSE x END AS target
  }
  CALL {
    WITH starts, target
    UNWIND starts AS s
    CALL {
      WITH s, target
      WITH s, target WHERE s = target
      RETURN 0 AS hops, [s] AS path
      UNION
      WITH s, target
      WITH s, target WHERE s <> target AND target IS NOT NULL
      MATCH p = shortestPath((s)-[:LINKED*..12]-(target))
      WHERE all(r IN relationships(p) WHERE r.expiredAt IS NULL)
        AND all(n IN nodes(p) WHERE n:Account OR (coalesce(n.linking, true) AND NOT n.hub))
      RETURN length(p) AS hops, nodes(p) AS path
    }
    // A path from one of the event's identifiers starts at the event's account when it has one.
    WITH s, CASE WHEN head(starts):Account AND s <> head(starts) THEN [head(starts)] + path ELSE path END AS path,
         hops + CASE WHEN head(starts):Account AND s <> head(starts) THEN 1 ELSE 0 END AS hops
    WITH path, hops ORDER BY hops
    RETURN head(collect({via: [n IN path WHERE n:Identifier | n.kind],
                         path: [n IN path | CASE WHEN n:Account THEN 'account:' + n.externalId ELSE 'id:' + n.kind + ':' + n.value END]})) AS best
  }
  WITH f, x, target, best ORDER BY f.at
  RETURN collect({key: f.key, outcome: f.outcome, at: f.at, retractedAt: f.retractedAt, via: best.via, path: best.path,
                  subject: CASE WHEN x:Event THEN 'event' WHEN x:Account THEN 'account' ELSE x.kind END,
                  subjectKey: CASE WHEN x:Event THEN 'event:' + x.id WHEN x:Account THEN 'account:' + x.externalId ELSE 'id:' + x.kind + ':' + x.value END,
                  targetKey: CASE WHEN target IS NULL THEN null WHEN target:Account THEN 'account:' + target.externalId ELSE 'id:' + target.kind + ':' + target.value END}) AS marks
}
RETURN c.id AS clusterId, c.accounts AS accounts, marks
