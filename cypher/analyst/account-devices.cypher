// account-devices: the devices an account has used, first and last seen (account takeover work).
// Parameters: $tenantId, $mode, $account (external_user_id), $limit.
// Returns: device, firstSeenAt, lastSeenAt, accountsOnDevice.
MATCH (:Account {tenantId: $tenantId, mode: $mode, externalId: $account})-[l:LINKED]->(d:Device)
RETURN d.value AS device, l.firstSeenAt AS firstSeenAt, d.lastSeenAt AS lastSeenAt, d.accounts AS accountsOnDevice
ORDER BY firstSeenAt
LIMIT $limit
