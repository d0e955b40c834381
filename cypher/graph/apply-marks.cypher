// apply-marks: applies a batch of outbox marks (feedback outcomes, review resolutions) to the
// cluster(s) of each subject, in order, in one transaction, after every link written before
// them (the graph writer's ordering). Idempotent per mark key: a (:Feedback) node records that a
// mark was applied, so a retried batch never counts a chargeback twice. Hub identifiers are
// skipped: their cluster holds unrelated accounts and must not be convicted through them. The
// Feedback node keeps the outcome, time and codes, so a cluster's facts can be recomputed from
// the marks inside it (cypher/graph/recompute-clusters); a confirmed_abuse mark's key joins the
// cluster's `abuse` list (the evidence a verdict cites); the graph writer then sets the accounts
// it is about (cypher/graph/recompute-account-marks). A mark that was retracted and is reported
// again is applied again.
// Parameters: $marks, a list of {tenantId, mode, key, at (epoch ms), anchorKind ('event' |
//   'account' | 'email'), anchorValue, outcome ('confirmed_abuse' | 'false_positive' |
//   'chargeback'), codes (codes to suppress on false_positive)}.
// Returns one row: applied (the number of marks).
UNWIND $marks AS m
CALL {
  WITH m
  MERGE (f:Feedback {tenantId: m.tenantId, mode: m.mode, key: m.key})
    ON CREATE SET f.outcome = m.outcome, f.at = m.at, f.codes = m.codes, f.fresh = true
  // Its subject, for a link that brings it later (apply-links).
  SET f.anchorKind = m.anchorKind, f.anchorValue = m.anchorValue
  WITH m, f, coalesce(f.fresh, false) OR f.retractedAt IS NOT NULL AS fresh
  FOREACH (_ IN CASE WHEN f.retractedAt IS NOT NULL THEN [1] ELSE [] END | SET f.at = m.at, f.codes = m.codes)
  REMOVE f.fresh, f.retractedAt
  WITH m, f, fresh
  CALL {
    WITH m
    MATCH (e:Event {tenantId: m.tenantId, mode: m.mode, id: m.anchorValue}) WHERE m.anchorKind = 'event'
    // The event's cluster as recompute-clusters counts it: its account's, or (no account) those
    // of the identifiers it used.
    OPTIONAL MATCH (e)-[:BY|USED]->(n)-[:IN]->(c:Cluster) WHERE NOT coalesce(n.hub, false) AND (n:Account OR NOT EXISTS { (e)-[:BY]->(:Account) })
    RETURN e AS anchor, c
    UNION
    WITH m
    MATCH (a:Account {tenantId: m.tenantId, mode: m.mode, externalId: m.anchorValue}) WHERE m.anchorKind = 'account'
    OPTIONAL MATCH (a)-[:IN]->(c:Cluster)
    RETURN a AS anchor, c
    UNION
    WITH m
    MATCH (i:Identifier {tenantId: m.tenantId, mode: m.mode, kind: 'email', value: m.anchorValue}) WHERE m.anchorKind = 'email'
    OPTIONAL MATCH (i)-[:IN]->(c:Cluster) WHERE NOT i.hub
    RETURN i AS anchor, c
  }
  WITH m, f, fresh, collect(DISTINCT anchor) AS anchors, collect(DISTINCT c) AS clusters
  FOREACH (c IN CASE WHEN fresh THEN clusters ELSE [] END |
    SET c.confirmedAbuse = c.confirmedAbuse OR m.outcome = 'confirmed_abuse',
        c.falsePositive = c.falsePositive OR m.outcome = 'false_positive',
        c.chargebacks = c.chargebacks + CASE WHEN m.outcome = 'chargeback' THEN 1 ELSE 0 END,
        c.suppressed = c.suppressed + [code IN m.codes WHERE m.outcome = 'false_positive' AND NOT code IN c.suppressed],
        c.abuse = coalesce(c.abuse, []) + [k IN [m.key] WHERE m.outcome = 'confirmed_abuse' AND NOT k IN coalesce(c.abuse, [])])
  FOREACH (x IN CASE WHEN fresh THEN anchors ELSE [] END | MERGE (f)-[:ON]->(x))
  RETURN 1 AS done
}
RETURN count(*) AS applied
