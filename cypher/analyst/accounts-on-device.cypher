// accounts-on-device: the accounts that used one device, first seen on it (the console's link for
// a device: events are not searched by device).
// Parameters: $tenantId, $mode, $device (the device id of a verdict's signals), $limit.
// Returns: account, firstSeenAt (epoch ms: the account's first use of the device), lastSeenAt (epoch ms: the device's last use).
MATCH (d:Device {tenantId: $tenantId, mode: $mode, kind: 'device', value: $device})<-[l:LINKED]-(a:Account)
RETURN a.externalId AS account, l.firstSeenAt AS firstSeenAt, d.lastSeenAt AS lastSeenAt
ORDER BY firstSeenAt
LIMIT $limit
