// what-links-accounts: what links these two accounts? The shortest chains of shared identifiers
// between them (account -> identifier <- account -> ...), through live links and identifiers
// that are not hubs (hubs link unrelated people), up to four identifiers long; every shortest
// chain when there are several.
// Parameters: $tenantId, $mode, $account (external_user_id), $other (the other external_user_id), $limit.
// Returns: path, identifiers (the shared identifiers in order, as kind:value), accounts (the accounts on the chain).
MATCH (a:Account {tenantId: $tenantId, mode: $mode, externalId: $account}), (b:Account {tenantId: $tenantId, mode: $mode, externalId: $other})
WHERE a <> b
MATCH path = allShortestPaths((a)-[:LINKED*..8]-(b))
WHERE all(n IN nodes(path) WHERE n:Account OR (n:Identifier AND NOT n.hub))
  AND all(r IN relationships(path) WHERE r.expiredAt IS NULL)
RETURN path,
  [n IN nodes(path) WHERE n:Identifier | n.kind + ':' + n.value] AS identifiers,
  [n IN nodes(path) WHERE n:Account | n.externalId] AS accounts
LIMIT $limit
