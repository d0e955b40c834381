// largest-clusters: the clusters linking the most accounts.
// Parameters: $tenantId, $mode, $limit (e.g. 20).
// Returns: cluster, accounts, size, confirmedAbuse, chargebacks.
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode})
WHERE c.accounts > 1
RETURN c.id AS cluster, c.accounts AS accounts, c.size AS size, c.confirmedAbuse AS confirmedAbuse, c.chargebacks AS chargebacks
ORDER BY accounts DESC, cluster
LIMIT $limit
