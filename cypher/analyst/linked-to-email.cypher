// linked-to-email: everything in the cluster of an email address (the console and the CLI
// normalise the address given as the graph does: lowercase,
// and without dots and plus-tags where the provider ignores them, e.g. gmail.com).
// Parameters: $tenantId, $mode, $email, $limit.
// Returns: cluster, label, kind, value (accounts have kind 'account' and their external id).
MATCH (:Email {tenantId: $tenantId, mode: $mode, kind: 'email', value: $email})-[:IN]->(c:Cluster)<-[:IN]-(m)
RETURN c.id AS cluster, head(labels(m)) AS label,
       CASE WHEN m:Account THEN 'account' ELSE m.kind END AS kind,
       coalesce(m.externalId, m.value) AS value
ORDER BY label, kind, value
LIMIT $limit
