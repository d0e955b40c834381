// identifiers: every identifier of a scope in the graph, streamed, with its counts, its hub and
// linking flags and its cluster, for `doorman graph verify`. Read-only. Parameters: $tenantId,
// $mode. Returns one row per identifier: kind, value, hub, linking, accounts, anonymous, cluster
// (id or null), clusters (how many it is in).
MATCH (i:Identifier {tenantId: $tenantId, mode: $mode})
CALL {
  WITH i
  OPTIONAL MATCH (i)-[:IN]->(c:Cluster)
  RETURN head(collect(c.id)) AS cluster, count(c) AS clusters
}
RETURN i.kind AS kind, i.value AS value, coalesce(i.hub, false) AS hub, coalesce(i.linking, true) AS linking,
       i.accounts AS accounts, i.anonymous AS anonymous, cluster, clusters
