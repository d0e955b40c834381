// accounts: every account of a scope in the graph, streamed, with its cluster and its links, for
// `doorman graph verify`. Read-only. Parameters: $tenantId, $mode. Returns one row per account:
// externalId, cluster (id or null), clusters (how many it is in), linked (list of {kind, value,
// expiresAt, expiredAt}), confirmedAt (cypher/graph/recompute-account-marks; null: none).
MATCH (a:Account {tenantId: $tenantId, mode: $mode})
CALL {
  WITH a
  OPTIONAL MATCH (a)-[:IN]->(c:Cluster)
  RETURN head(collect(c.id)) AS cluster, count(c) AS clusters
}
CALL {
  WITH a
  OPTIONAL MATCH (a)-[k:LINKED]->(i:Identifier)
  RETURN [x IN collect(CASE WHEN i IS NOT NULL THEN {kind: i.kind, value: i.value, expiresAt: k.expiresAt, expiredAt: k.expiredAt} END) WHERE x IS NOT NULL] AS linked
}
RETURN a.externalId AS externalId, cluster, clusters, linked, a.confirmedAt AS confirmedAt
