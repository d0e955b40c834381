// shared-identifiers: the other accounts that used an identifier an account used, as paths
// account -> identifier <- account (hubs left out: they link unrelated people).
// Parameters: $tenantId, $mode, $account (external_user_id), $limit.
// Returns: path (account, identifier, other account), kind, value, other.
MATCH path = (a:Account {tenantId: $tenantId, mode: $mode, externalId: $account})-[:LINKED]->(i:Identifier)<-[:LINKED]-(b:Account)
WHERE NOT i.hub AND b <> a
RETURN path, i.kind AS kind, i.value AS value, b.externalId AS other
ORDER BY kind, value, other
LIMIT $limit
