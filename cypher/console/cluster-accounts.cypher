// cluster-accounts: one page of a cluster's accounts for the console's ring view, in the order they
// were first seen (then by external id) after the cursor's (firstSeenAt, externalId), each with
// its confirmedAt (a live confirmed_abuse mark about it, as the verdict's read counts it).
// Parameters: $tenantId, $mode, $clusterId, $afterAt (epoch ms, or null from the start), $afterId,
//   $limit.
// Returns at most one row (none for a cluster not in this tenant and mode): accounts (the
//   cluster's count), page (list of {externalId, firstSeenAt, confirmedAt}).
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: $clusterId})
CALL {
  WITH c
  MATCH (a:Account)-[:IN]->(c)
  WITH a, coalesce(a.firstSeenAt, 0) AS at
  WHERE $afterAt IS NULL OR at > $afterAt OR (at = $afterAt AND a.externalId > $afterId)
  WITH a, at ORDER BY at, a.externalId LIMIT $limit
  RETURN collect({externalId: a.externalId, firstSeenAt: at, confirmedAt: a.confirmedAt}) AS page
}
RETURN c.accounts AS accounts, page
