// explain-event: why an event's cluster is what it is (`doorman graph explain`): the cluster of
// the event's account (or, without one, of the identifiers it used), and every mark standing on
// it, each with the shortest path of live links from the event's account or identifiers to the
// mark's subject (the kinds of the identifiers on it, in path order). Read-only.
// Parameters: $tenantId, $mode, $eventId. Returns at most one row: clusterId, accounts, marks
//   (list of {key, outcome, at (epoch ms), subject ('event' | 'account' | <identifier kind>), via
//   (list or null), path (the path's nodes as the console's cluster picture keys them:
//   'account:<id>', 'id:<kind>:<value>'; null without a live path)}).
MATCH (e:Event {tenantId: $tenantId, mode: $mode, id: $eventId})
OPTIONAL MATCH (e)-[:BY]->(a:Account)
OPTIONAL MATCH (e)-[:USED]->(i:Identifier) WHERE coalesce(i.linking, true) AND NOT i.hub
WITH e, a, collect(i) AS ids
WITH e, CASE WHEN a IS NULL THEN ids ELSE [a] + ids END AS starts
UNWIND starts AS s
MATCH (s)-[:IN]->(c:Cluster)
WITH e, starts, c ORDER BY c.accounts DESC LIMIT 1
CALL {
  WITH c
  MATCH (m)-[:IN]->(c)
  OPTIONAL MATCH (ev:Event)-[:BY|USED]->(m) WHERE m:Account OR NOT EXISTS { (ev)-[:BY]->(:Account) }
  WITH collect(DISTINCT m) AS members, collect(DISTINCT ev) AS events
  UNWIND members + events AS x
  MATCH (f:Feedback)-[:ON]->(x) WHERE f.retractedAt IS NULL
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
  WITH f, x, best ORDER BY f.at
  RETURN collect({key: f.key, outcome: f.outcome, at: f.at, via: best.via, path: best.path,
                  subject: CASE WHEN x:Event THEN 'event' WHEN x:Account THEN 'account' ELSE x.kind END}) AS marks
}
RETURN c.id AS clusterId, c.accounts AS accounts, marks
