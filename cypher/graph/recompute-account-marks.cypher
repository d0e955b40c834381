// recompute-account-marks: sets each account's `confirmedAt` from the marks that stand about it:
// the time of the earliest confirmed_abuse mark not retracted on the account, on one of its
// events, or on an email it links (a link live or expired); null when none stands. The verdict's
// read finds a hub's marked accounts by it (read-cluster), without a hop per account. The graph
// writer runs it, in the lane's order, for the accounts that marks applied or retracted are about
// ($marks), and after a forget or a recluster for a whole scope ($scopes: every account that holds
// it or that a standing mark is about); apply-links lowers it in place for an account whose new
// link brings a mark. `doorman graph verify` compares it with what Postgres says.
// Parameters: $marks (list of {tenantId, mode, key}), $scopes (list of {tenantId, mode}).
// Returns one row: recomputed (the number of accounts).
CALL {
  UNWIND $scopes AS s
  MATCH (x:Account {tenantId: s.tenantId, mode: s.mode})
  WHERE x.confirmedAt IS NOT NULL
  RETURN x
  UNION
  // The accounts a mark is about: the account, the event's account, those that link the email.
  CALL {
    UNWIND $marks AS m
    MATCH (f:Feedback {tenantId: m.tenantId, mode: m.mode, key: m.key})
    RETURN f
    UNION
    UNWIND $scopes AS s
    MATCH (f:Feedback {tenantId: s.tenantId, mode: s.mode})
    WHERE f.outcome = 'confirmed_abuse' AND f.retractedAt IS NULL
    RETURN f
  }
  MATCH (f)-[:ON]->(n)
  CALL {
    WITH n
    WITH n WHERE n:Account
    RETURN n AS x
    UNION
    WITH n
    MATCH (n:Event)-[:BY]->(x:Account)
    RETURN x
    UNION
    WITH f, n
    MATCH (n:Identifier {tenantId: f.tenantId, mode: f.mode, kind: 'email'})<-[:LINKED]-(x:Account)
    RETURN x
  }
  RETURN x
}
WITH DISTINCT x
// One row per account, with none when no mark stands about it any more.
CALL {
  WITH x
  CALL {
    WITH x
    MATCH (f:Feedback)-[:ON]->(x)
    RETURN f
    UNION
    WITH x
    MATCH (f:Feedback)-[:ON]->(:Event)-[:BY]->(x)
    RETURN f
    UNION
    WITH x
    MATCH (f:Feedback)-[:ON]->(:Identifier {tenantId: x.tenantId, mode: x.mode, kind: 'email'})<-[:LINKED]-(x)
    RETURN f
  }
  RETURN min(CASE WHEN f.outcome = 'confirmed_abuse' AND f.retractedAt IS NULL THEN f.at END) AS confirmedAt
}
SET x.confirmedAt = confirmedAt
RETURN count(*) AS recomputed
