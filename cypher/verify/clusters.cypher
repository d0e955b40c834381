// clusters: every cluster of a scope, streamed, with the facts a verdict reads and the members it
// really has, for `doorman graph verify`. Read-only. Parameters: $tenantId, $mode. Returns one row
// per cluster: id, size, accounts, members, memberAccounts, confirmedAbuse, falsePositive,
// chargebacks, abuse (mark keys).
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode})
RETURN c.id AS id, c.size AS size, c.accounts AS accounts,
       COUNT { (m)-[:IN]->(c) } AS members, COUNT { (:Account)-[:IN]->(c) } AS memberAccounts,
       c.confirmedAbuse AS confirmedAbuse, c.falsePositive AS falsePositive, c.chargebacks AS chargebacks, coalesce(c.abuse, []) AS abuse
