// event-cluster: the id of the identity cluster a screened event belongs to (through its account
// or an identifier that is not a hub); the largest when there are several, none when the event
// linked nothing or its link is not applied yet.
// Parameters: $tenantId, $mode, $eventId.
// Returns at most one row: clusterId.
MATCH (:Event {tenantId: $tenantId, mode: $mode, id: $eventId})-[:BY|USED]->(n)-[:IN]->(c:Cluster)
WHERE NOT coalesce(n.hub, false)
RETURN c.id AS clusterId
ORDER BY c.accounts DESC, c.size DESC
LIMIT 1
