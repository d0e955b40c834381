// apply-link-policy: sets what the tenant's link policy says on every identifier and link of one
// scope (`doorman graph recluster`, after a policy change): whether each identifier links (its kind
// on, its value not excluded, not a hub at its kind's threshold), whether it is a hub, and when
// each link expires (or that it has: expired links hold nothing together). The writer then
// recomputes the scope's clusters (src/graph/recluster.ts).
// Parameters: $tenantId, $mode, $at (epoch ms), $default ({links, hub, expiryMs (int|null),
//   exclude (list)}), $kinds (map of kind to the same shape).
// Returns one row: identifiers, links.
MATCH (i:Identifier {tenantId: $tenantId, mode: $mode})
WITH i, coalesce($kinds[i.kind], $default) AS p
WITH i, p, i.accounts + i.anonymous > p.hub AS hub
SET i.hub = hub, i.linking = p.links AND NOT hub AND NOT i.value IN p.exclude, i.hubAt = p.hub, i.policyLinks = p.links AND NOT i.value IN p.exclude
WITH i, p
CALL {
  WITH i, p
  MATCH (:Account)-[k:LINKED]->(i)
  WITH k, p, coalesce(k.lastSeenAt, k.firstSeenAt) + p.expiryMs AS until
  SET k.expiresAt = CASE WHEN until > $at THEN until END,
      k.expiredAt = CASE WHEN until <= $at THEN coalesce(k.expiredAt, $at) END
  RETURN count(*) AS links
}
RETURN count(i) AS identifiers, sum(links) AS links
