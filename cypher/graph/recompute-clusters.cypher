// recompute-clusters: sets the facts of the given clusters from what lies inside them, after a
// split, a merge by `doorman graph recluster`, or a retracted mark: the members and accounts; the
// cluster's events (those of its accounts, and those without an account that used its
// identifiers) for the latest trial start, the earliest conversion and the cards of the last day;
// the marks whose subject lies inside (on a member, or on one of those events) and are not
// retracted, for confirmed abuse, trust, chargebacks and suppressed codes. So each part of a
// split keeps only the marks about it. Run only by the graph writer, in the lane's order.
// Parameters: $tenantId, $mode, $ids (cluster ids), $at (epoch ms: cards since a day before count).
// Returns one row: recomputed.
UNWIND $ids AS cid
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: cid})
CALL {
  WITH c
  MATCH (m)-[:IN]->(c)
  RETURN collect(m) AS members
}
CALL {
  WITH members
  UNWIND members AS m
  MATCH (e:Event)-[:BY|USED]->(m)
  WHERE m:Account OR NOT EXISTS { (e)-[:BY]->(:Account) }
  RETURN collect(DISTINCT e) AS events
}
CALL {
  WITH members, events
  UNWIND members + events AS x
  MATCH (f:Feedback)-[:ON]->(x) WHERE f.retractedAt IS NULL
  RETURN collect(DISTINCT f) AS marks
}
CALL {
  WITH events
  UNWIND events AS e
  WITH e WHERE e.card IS NOT NULL AND e.at >= $at - 86400000
  WITH e ORDER BY e.at
  RETURN collect(e.at)[-50..] AS cardAt, collect(e.card)[-50..] AS cardValue, collect(coalesce(e.cardCountry, ''))[-50..] AS cardCountry
}
CALL {
  WITH members
  UNWIND [m IN members WHERE m:Account] AS a
  WITH a ORDER BY a.firstSeenAt
  RETURN collect(a.firstSeenAt)[-100..] AS accountAt
}
SET c.size = size(members),
    c.accounts = size([m IN members WHERE m:Account]),
    c.accountAt = accountAt,
    c.confirmedAbuse = any(f IN marks WHERE f.outcome = 'confirmed_abuse'),
    c.abuse = [f IN marks WHERE f.outcome = 'confirmed_abuse' | f.key],
    c.falsePositive = any(f IN marks WHERE f.outcome = 'false_positive'),
    c.chargebacks = size([f IN marks WHERE f.outcome = 'chargeback']),
    c.suppressed = reduce(s = [], f IN marks | s + [x IN coalesce(f.codes, []) WHERE NOT x IN s]),
    c.lastTrialStartAt = reduce(t = null, e IN events | CASE WHEN e.type = 'trial_start' AND (t IS NULL OR e.at > t) THEN e.at ELSE t END),
    c.convertedAt = reduce(t = null, e IN events | CASE WHEN e.type = 'trial_convert' AND (t IS NULL OR e.at < t) THEN e.at ELSE t END),
    c.cardAt = cardAt, c.cardValue = cardValue, c.cardCountry = cardCountry
RETURN count(*) AS recomputed
