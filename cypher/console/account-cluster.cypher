// account-cluster: the id of the identity cluster an account (external_user_id) belongs to.
// Parameters: $tenantId, $mode, $account.
// Returns at most one row: clusterId.
MATCH (:Account {tenantId: $tenantId, mode: $mode, externalId: $account})-[:IN]->(c:Cluster)
RETURN c.id AS clusterId
LIMIT 1
