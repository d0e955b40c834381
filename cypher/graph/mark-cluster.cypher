// mark-cluster: applies a feedback outcome to the cluster(s) of a subject. Hub identifiers are
// skipped: their cluster holds unrelated accounts and must not be convicted through them.
// Parameters: $tenantId, $mode, $anchorKind ('event' | 'account' | 'email'), $anchorValue,
//   $outcome ('confirmed_abuse' | 'false_positive' | 'chargeback'), $codes (codes to suppress
//   on false_positive).
// Returns one row: found (the subject exists in the graph), clusters (how many were marked).
CALL {
  MATCH (e:Event {tenantId: $tenantId, mode: $mode, id: $anchorValue}) WHERE $anchorKind = 'event'
  OPTIONAL MATCH (e)-[:BY|USED]->(n)-[:IN]->(c:Cluster) WHERE NOT coalesce(n.hub, false)
  RETURN e AS anchor, c
  UNION
  MATCH (a:Account {tenantId: $tenantId, mode: $mode, externalId: $anchorValue}) WHERE $anchorKind = 'account'
  OPTIONAL MATCH (a)-[:IN]->(c:Cluster)
  RETURN a AS anchor, c
  UNION
  MATCH (i:Identifier {tenantId: $tenantId, mode: $mode, kind: 'email', value: $anchorValue}) WHERE $anchorKind = 'email'
  OPTIONAL MATCH (i)-[:IN]->(c:Cluster) WHERE NOT i.hub
  RETURN i AS anchor, c
}
WITH count(anchor) > 0 AS found, collect(DISTINCT c) AS clusters
FOREACH (c IN clusters |
  SET c.confirmedAbuse = c.confirmedAbuse OR $outcome = 'confirmed_abuse',
      c.falsePositive = c.falsePositive OR $outcome = 'false_positive',
      c.chargebacks = c.chargebacks + CASE WHEN $outcome = 'chargeback' THEN 1 ELSE 0 END,
      c.suppressed = c.suppressed + [code IN $codes WHERE $outcome = 'false_positive' AND NOT code IN c.suppressed])
RETURN found, size(clusters) AS clusters
