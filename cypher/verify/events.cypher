// events: the graph's side of some of a scope's events, for `doorman graph verify` to compare
// with their stored links: each event found, the account it is by and every identifier it used.
// Read-only. Parameters: $tenantId, $mode, $ids (event ids). Returns one row per event found: id,
// account (externalId or null), used (list of {kind, value, anonymous, expiresAt, expiredAt}).
UNWIND $ids AS id
MATCH (e:Event {tenantId: $tenantId, mode: $mode, id: id})
CALL {
  WITH e
  OPTIONAL MATCH (e)-[:BY]->(a:Account)
  RETURN head(collect(a.externalId)) AS account
}
CALL {
  WITH e
  OPTIONAL MATCH (e)-[u:USED]->(i:Identifier)
  RETURN [x IN collect(CASE WHEN i IS NOT NULL THEN {kind: i.kind, value: i.value, anonymous: u.anonymous, expiresAt: u.expiresAt, expiredAt: u.expiredAt} END) WHERE x IS NOT NULL] AS used
}
RETURN e.id AS id, account, used
