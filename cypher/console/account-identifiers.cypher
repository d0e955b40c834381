// account-identifiers: what one account links to, for its account page: each identifier with its
// kind, value, whether it is a hub, how many accounts share it, and when the account first and
// last used it and whether that link expired; and its cluster's id. Bounded by $limit identifiers.
// Parameters: $tenantId, $mode, $account, $limit.
// Returns at most one row: clusterId (or null), identifiers (list of {kind, value, hub, accounts,
//   firstSeenAt, lastSeenAt}).
MATCH (a:Account {tenantId: $tenantId, mode: $mode, externalId: $account})
OPTIONAL MATCH (a)-[:IN]->(c:Cluster)
CALL {
  WITH a
  OPTIONAL MATCH (a)-[l:LINKED]->(i:Identifier)
  WITH i, l ORDER BY i.kind, i.value
  LIMIT $limit
  RETURN collect(CASE WHEN i IS NULL THEN null ELSE {kind: i.kind, value: i.value, hub: coalesce(i.hub, false), accounts: i.accounts,
    firstSeenAt: l.firstSeenAt, lastSeenAt: l.lastSeenAt, expired: l.expiredAt IS NOT NULL} END) AS identifiers
}
RETURN c.id AS clusterId, identifiers
