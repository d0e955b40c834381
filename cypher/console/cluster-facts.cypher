// cluster-facts: one cluster's facts (the review detail's cluster summary).
// Parameters: $tenantId, $mode, $clusterId.
// Returns at most one row: cluster (a map of id, accounts, size, confirmedAbuse, falsePositive,
//   chargebacks, suppressed, lastTrialStartAt, convertedAt).
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: $clusterId})
RETURN c {.id, .accounts, .size, .confirmedAbuse, .falsePositive, .chargebacks, .suppressed, .lastTrialStartAt, .convertedAt} AS cluster
