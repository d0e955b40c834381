// expire-links: the links of one scope whose time ran out (a link lasts as long as the tenant's
// link policy says for its kind, counted from when it was last seen) are marked expired, and the
// clusters they held together are returned for the graph writer to split. Run by the graph writer
// for the scopes of its lanes, about every 30 s. `expiresAt` is removed once a link expired (and
// set again when it is seen again), so the relationship index holds only links still to expire.
// Parameters: $tenantId, $mode, $at (epoch ms). Returns one row: expired, clusters (ids).
CALL {
  MATCH (a:Account {tenantId: $tenantId, mode: $mode})-[k:LINKED]->(i:Identifier)
  USING INDEX k:LINKED(expiresAt)
  WHERE k.expiresAt <= $at
  SET k.expiresAt = null, k.expiredAt = $at
  WITH a
  OPTIONAL MATCH (a)-[:IN]->(c:Cluster)
  RETURN count(*) AS links, collect(DISTINCT c.id) AS linkClusters
}
CALL {
  MATCH (e:Event {tenantId: $tenantId, mode: $mode})-[u:USED]->(i:Identifier)
  USING INDEX u:USED(expiresAt)
  WHERE u.expiresAt <= $at
  SET u.expiresAt = null, u.expiredAt = $at
  WITH i
  OPTIONAL MATCH (i)-[:IN]->(c:Cluster)
  RETURN count(*) AS uses, collect(DISTINCT c.id) AS useClusters
}
RETURN links + uses AS expired, linkClusters + [x IN useClusters WHERE NOT x IN linkClusters] AS clusters
