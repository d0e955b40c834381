// cluster-picture: one page of a cluster, to draw: its members (in the order Neo4j keeps them,
// stable while the cluster does not change), the hubs its accounts used (shown as hubs, never
// expanded into their other accounts), the newest events of the members, and the edges among
// what is drawn. Bounded whatever the cluster's size: at most $limit members from $skip on,
// $hubLimit hubs, 20 events looked at per member and $eventLimit drawn.
// Parameters: $tenantId, $mode, $clusterId, $skip, $limit, $hubLimit, $eventLimit.
// Returns one row (none for a cluster not in this tenant and mode): cluster (its facts),
//   members and hubs (lists of {key, label, kind, value, accounts, anonymous, hub, linking, history,
//   firstSeenAt, lastSeenAt}), events (list of {key, id, type, at}), edges (list of {from, to, type}).
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: $clusterId})
CALL {
  WITH c
  MATCH (m)-[:IN]->(c)
  RETURN m SKIP $skip LIMIT $limit
}
WITH c, collect(m) AS members
CALL {
  WITH members
  UNWIND [m IN members WHERE m:Account] AS a
  MATCH (a)-[:LINKED]->(h:Identifier)
  WHERE h.hub AND NOT h IN members
  RETURN collect(DISTINCT h)[..$hubLimit] AS hubs
}
CALL {
  WITH members
  UNWIND members AS m
  CALL {
    WITH m
    MATCH (e:Event)-[:BY|USED]->(m)
    RETURN e LIMIT 20
  }
  WITH DISTINCT e
  ORDER BY e.at DESC
  LIMIT $eventLimit
  RETURN collect(e) AS events
}
WITH c, members, hubs, events, members + hubs AS shown
CALL {
  WITH members, shown
  UNWIND [m IN members WHERE m:Account] AS a
  MATCH (a)-[:LINKED]->(i)
  WHERE i IN shown
  RETURN collect({from: 'account:' + a.externalId, to: 'id:' + i.kind + ':' + i.value, type: 'LINKED'}) AS linked
}
CALL {
  WITH events, shown
  UNWIND events AS e
  MATCH (e)-[r:BY|USED]->(n)
  WHERE n IN shown
  RETURN collect({from: 'event:' + e.id, to: CASE WHEN n:Account THEN 'account:' + n.externalId ELSE 'id:' + n.kind + ':' + n.value END, type: type(r)}) AS touched
}
RETURN c {.id, .accounts, .size, .confirmedAbuse, .falsePositive, .chargebacks, .suppressed, .lastTrialStartAt, .convertedAt} AS cluster,
  [n IN members + hubs | {
    key: CASE WHEN n:Account THEN 'account:' + n.externalId ELSE 'id:' + n.kind + ':' + n.value END,
    label: CASE WHEN n:Account THEN 'account' ELSE 'identifier' END,
    kind: coalesce(n.kind, 'account'), value: coalesce(n.value, n.externalId),
    accounts: n.accounts, anonymous: n.anonymous, hub: coalesce(n.hub, false), linking: coalesce(n.linking, true), history: n.history,
    firstSeenAt: n.firstSeenAt, lastSeenAt: n.lastSeenAt}] AS nodes,
  [e IN events | {key: 'event:' + e.id, id: e.id, type: e.type, at: e.at}] AS events,
  linked + touched AS edges,
  size(members) AS drawnMembers
