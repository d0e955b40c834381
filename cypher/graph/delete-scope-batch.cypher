// delete-scope-batch: removes up to $limit nodes (and their relationships) of one tenant and mode
// from the identity graph, for `doorman graph rebuild`; run until it deletes nothing. Erasure
// records stay (they hold no personal data and say what was erased). The scope's last applied
// link goes too: until links are applied again, a verdict's write looks at every kept link.
// Parameters: $tenantId, $mode, $limit. Returns one row: deleted.
CALL {
  MATCH (n:Event {tenantId: $tenantId, mode: $mode}) RETURN n
  UNION ALL
  MATCH (n:Account {tenantId: $tenantId, mode: $mode}) RETURN n
  UNION ALL
  MATCH (n:Identifier {tenantId: $tenantId, mode: $mode}) RETURN n
  UNION ALL
  MATCH (n:Cluster {tenantId: $tenantId, mode: $mode}) RETURN n
  UNION ALL
  MATCH (n:Feedback {tenantId: $tenantId, mode: $mode}) RETURN n
  UNION ALL
  MATCH (n:LinksApplied {tenantId: $tenantId, mode: $mode}) RETURN n
}
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
