// scope-members: what the graph writer needs to recompute clusters as the connected parts of their
// live links (docs/graph.md, "Splits"): every account and linking identifier of a scope, in a
// cluster or not, with its live links (`doorman graph recluster`; cypher/graph/cluster-members
// reads given clusters). A live link is an account's LINKED to an identifier that links (not a hub,
// not excluded, its kind on) and has not expired; an event without an account links the identifiers
// it used, until it expires. Read-only; run inside the writer's transaction. Parameters: $tenantId,
// $mode, $at (epoch ms: links that expire at or before it are not live). Returns one row per
// member: node (elementId), account (bool), links (bool: whether it may be a member at all),
// cluster (its cluster's id or null), linked (elementIds of the identifiers an account links),
// anonymous (elementIds of the events without an account that used it).
CALL {
  MATCH (m:Account {tenantId: $tenantId, mode: $mode})
  RETURN m
  UNION
  MATCH (m:Identifier {tenantId: $tenantId, mode: $mode})
  WHERE (coalesce(m.linking, true) AND NOT m.hub) OR EXISTS { (m)-[:IN]->(:Cluster) }
  RETURN m
}
OPTIONAL MATCH (m)-[:IN]->(c:Cluster)
WITH m, c.id AS cluster
WITH m, cluster, m:Account OR (coalesce(m.linking, true) AND NOT coalesce(m.hub, false)) AS links
CALL {
  WITH m, links
  MATCH (m:Account)-[k:LINKED]->(i:Identifier)
  WHERE links AND k.expiredAt IS NULL AND (k.expiresAt IS NULL OR k.expiresAt > $at) AND coalesce(i.linking, true) AND NOT i.hub
  RETURN collect(elementId(i)) AS linked
}
CALL {
  WITH m, links
  MATCH (m:Identifier)<-[u:USED]-(e:Event)
  WHERE links AND NOT EXISTS { (e)-[:BY]->(:Account) } AND u.expiredAt IS NULL AND (u.expiresAt IS NULL OR u.expiresAt > $at)
  RETURN collect(elementId(e)) AS anonymous
}
RETURN elementId(m) AS node, m:Account AS account, links, cluster, linked, anonymous
