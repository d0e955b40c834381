// read-cluster: the facts of the cluster an event would join, read without writing anything. It
// finds the clusters of the event's account and of its identifiers and combines their facts as
// if they were already merged, which is what the graph writer will do when it applies the link.
// An identifier that is a hub, or that this event would make one, joins nothing.
// Parameters: $tenantId, $mode, $account (string|null), $ids (list of {kind, value}),
//   $hubThreshold (int), $since (epoch ms: cards used at or after it count).
// Returns one row: clusterId (the largest cluster, or null), accounts (linked accounts, this
//   event's included), confirmedAbuse, falsePositive, chargebacks, convertedAt, lastTrialStartAt,
//   suppressed, cards (list of {card, country} used since $since), accountHistory, deviceSeen.
OPTIONAL MATCH (a:Account {tenantId: $tenantId, mode: $mode, externalId: $account})
CALL {
  WITH a
  UNWIND $ids AS id
  MATCH (i:Identifier {tenantId: $tenantId, mode: $mode, kind: id.kind, value: id.value})
  OPTIONAL MATCH (a)-[k:LINKED]->(i)
  // This event adds one link to i unless its account already holds one.
  WITH i, k, coalesce(i.accounts, 0) + coalesce(i.anonymous, 0) + CASE WHEN k IS NULL THEN 1 ELSE 0 END AS links
  RETURN collect(CASE WHEN NOT i.hub AND links <= $hubThreshold THEN i END) AS linking,
         count(CASE WHEN i.kind = 'device' AND k IS NOT NULL THEN 1 END) > 0 AS deviceSeen
}
CALL {
  WITH a, linking
  UNWIND CASE WHEN a IS NULL THEN linking ELSE [a] + linking END AS m
  MATCH (m)-[:IN]->(c:Cluster)
  RETURN collect(DISTINCT c) AS clusters
}
WITH a, deviceSeen, clusters,
     $account IS NOT NULL AND (a IS NULL OR NOT EXISTS { (a)-[:IN]->(:Cluster) }) AS newAccount
RETURN reduce(best = null, c IN clusters | CASE WHEN best IS NULL OR c.accounts > best.accounts THEN c ELSE best END).id AS clusterId,
       reduce(n = 0, c IN clusters | n + c.accounts) + CASE WHEN newAccount THEN 1 ELSE 0 END AS accounts,
       any(c IN clusters WHERE c.confirmedAbuse) AS confirmedAbuse,
       any(c IN clusters WHERE c.falsePositive) AS falsePositive,
       reduce(n = 0, c IN clusters | n + c.chargebacks) AS chargebacks,
       reduce(t = null, c IN clusters | CASE WHEN c.convertedAt IS NOT NULL AND (t IS NULL OR c.convertedAt < t) THEN c.convertedAt ELSE t END) AS convertedAt,
       reduce(t = null, c IN clusters | CASE WHEN c.lastTrialStartAt IS NOT NULL AND (t IS NULL OR c.lastTrialStartAt > t) THEN c.lastTrialStartAt ELSE t END) AS lastTrialStartAt,
       reduce(s = [], c IN clusters | s + [x IN c.suppressed WHERE NOT x IN s]) AS suppressed,
       reduce(s = [], c IN clusters | s + [j IN range(0, size(coalesce(c.cardAt, [])) - 1) WHERE c.cardAt[j] >= $since | {card: c.cardValue[j], country: c.cardCountry[j]}]) AS cards,
       coalesce(a.history, false) AS accountHistory,
       deviceSeen
