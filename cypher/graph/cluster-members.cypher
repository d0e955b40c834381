// cluster-members: what the graph writer needs to recompute clusters as the connected parts of
// their live links (docs/graph.md, "Splits"): every member of the given clusters, with its live
// links (cypher/graph/scope-members: every account and linking identifier of a scope). A live link
// is an account's LINKED to an identifier that links (not a hub, not excluded, its kind on) and has
// not expired; an event without an account links the identifiers it used, until it expires.
// Read-only; run inside the writer's transaction. Parameters: $tenantId, $mode, $ids (list of
// cluster ids), $at (epoch ms: links that expire at or before it are not live). Returns one row per
// member: node (elementId), account (bool), links (bool: whether it may be a member at all),
// cluster (its cluster's id or null), linked (elementIds of the identifiers an account links),
// anonymous (elementIds of the events without an account that used it).
UNWIND $ids AS id
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: id})
MATCH (m)-[:IN]->(c)
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
