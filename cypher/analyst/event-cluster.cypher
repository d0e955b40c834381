// event-cluster: the identity cluster of one screened event, with its facts.
// Parameters: $tenantId, $mode, $eventId (the `id` of a verdict response).
// Returns: cluster, accounts, size, confirmedAbuse, falsePositive, chargebacks, suppressed.
MATCH (:Event {tenantId: $tenantId, mode: $mode, id: $eventId})-[:BY|USED]->(n)-[:IN]->(c:Cluster)
WHERE NOT coalesce(n.hub, false)
RETURN DISTINCT c.id AS cluster, c.accounts AS accounts, c.size AS size, c.confirmedAbuse AS confirmedAbuse,
       c.falsePositive AS falsePositive, c.chargebacks AS chargebacks, c.suppressed AS suppressed
