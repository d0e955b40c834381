// hubs: identifiers shared by more accounts than the hub threshold; they no longer link
// accounts into clusters (a shared office device, a placeholder phone, a test card).
// Parameters: $tenantId, $mode, $limit.
// Returns: kind, value, accounts, lastSeenAt.
MATCH (i:Identifier {tenantId: $tenantId, mode: $mode, hub: true})
RETURN i.kind AS kind, i.value AS value, i.accounts AS accounts, i.lastSeenAt AS lastSeenAt
ORDER BY accounts DESC
LIMIT $limit
