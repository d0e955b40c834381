// explain-event: why an event's cluster is what it is (`doorman graph explain`): the cluster of
// the event's account (or, without one, of the identifiers it used), and every mark standing on
// it, each with the shortest path of live links from the event's account or identifiers to the
// mark's subject (the kinds of the identifiers on it, in path order). Read-only.
// Parameters: $tenantId, $mode, $eventId. Returns at most one row: clusterId, accounts, marks
//   (list of {key, outcome, at (epoch ms), subject ('event' | 'account' | <identifier kind>), via (list or null)}).
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
      RETURN CASE WHEN s:Account THEN [] ELSE [s.kind] END AS via, 0 AS hops
      UNION
      WITH s, target
      WITH s, target WHERE s <> target AND target IS NOT NULL
      MATCH p = shortestPath((s)-[:LINKED*..12]-(target))
      WHERE all(r IN relationships(p) WHERE r.expiredAt IS NULL)
        AND all(n IN nodes(p) WHERE n:Account OR (coalesce(n.linking, true) AND NOT n.hub))
      RETURN [n IN nodes(p) WHERE n:Identifier | n.kind] AS via, length(p) AS hops
    }
    WITH via, hops ORDER BY hops
    RETURN head(collect(via)) AS via
  }
  WITH f, x, via ORDER BY f.at
  RETURN collect({key: f.key, outcome: f.outcome, at: f.at, via: via,
                  subject: CASE WHEN x:Event THEN 'event' WHEN x:Account THEN 'account' ELSE x.kind END}) AS marks
}
RETURN c.id AS clusterId, c.accounts AS accounts, marks
