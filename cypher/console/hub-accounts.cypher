// hub-accounts: the accounts behind one identifier, for the console ("who shares this device?"):
// whether it is a hub, how many accounts link to it, and $limit of them from $skip on in the
// order they linked, each with whether it carries a live confirmed_abuse mark (on the account, on one
// of its events, or on its email: its `confirmedAt`, cypher/graph/recompute-account-marks), as
// hub_confirmed_abuse counts them (cypher/graph/read-cluster).
// Parameters: $tenantId, $mode, $kind, $value, $skip, $limit.
// Returns at most one row: hub, accounts, confirmed (marked accounts among all of them), listed
//   (list of {externalId, linkedAt (epoch ms), expired, confirmed}).
MATCH (i:Identifier {tenantId: $tenantId, mode: $mode, kind: $kind, value: $value})
CALL {
  WITH i
  MATCH (x:Account)-[k:LINKED]->(i)
  WITH x, k, x.confirmedAt IS NOT NULL AS confirmed ORDER BY k.firstSeenAt, x.externalId
  RETURN count(x) AS accounts, count(CASE WHEN confirmed THEN 1 END) AS marked,
         collect({externalId: x.externalId, linkedAt: k.firstSeenAt, expired: k.expiredAt IS NOT NULL, confirmed: confirmed})[$skip..$skip + $limit] AS listed
}
RETURN coalesce(i.hub, false) AS hub, accounts, marked AS confirmed, listed
