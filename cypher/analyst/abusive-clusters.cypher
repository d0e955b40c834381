// abusive-clusters: clusters marked by confirmed_abuse feedback, or carrying chargebacks.
// Parameters: $tenantId, $mode, $limit.
// Returns: cluster, accounts, confirmedAbuse, chargebacks.
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode})
WHERE c.confirmedAbuse OR c.chargebacks > 0
RETURN c.id AS cluster, c.accounts AS accounts, c.confirmedAbuse AS confirmedAbuse, c.chargebacks AS chargebacks
ORDER BY confirmedAbuse DESC, chargebacks DESC, accounts DESC
LIMIT $limit
