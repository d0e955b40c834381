// cluster-growth: which clusters of two or more accounts the given accounts (those first seen in
// a window) are in now, how many of each cluster's accounts they are, and whether a confirmed
// abuse mark stands on it: a cluster all of whose accounts are new was made in the window, one
// with older accounts too grew in it.
// Parameters: $tenantId, $mode, $accounts (list of external ids, bounded by the caller).
// Returns one row per cluster: clusterId, accounts (now), fresh (of the given accounts),
//   confirmedAbuse.
UNWIND $accounts AS x
MATCH (:Account {tenantId: $tenantId, mode: $mode, externalId: x})-[:IN]->(c:Cluster)
WHERE c.accounts >= 2
RETURN c.id AS clusterId, c.accounts AS accounts, count(*) AS fresh, coalesce(c.confirmedAbuse, false) AS confirmedAbuse
ORDER BY fresh DESC, clusterId
