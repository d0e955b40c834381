// Accounts that a standing confirmed_abuse mark is about carry `confirmedAt`, the earliest such
// mark's time (cypher/graph/recompute-account-marks): indexed for the writer's recompute of a
// scope after a retraction, a forget or a recluster.
CREATE INDEX account_confirmed IF NOT EXISTS FOR (n:Account) ON (n.tenantId, n.mode, n.confirmedAt);
// A graph written before accounts carried it gets it once: an account a standing mark is about (on
// it, on one of its events, on an email it links) and that has none.
MATCH (f:Feedback)-[:ON]->(n)
WHERE f.outcome = 'confirmed_abuse' AND f.retractedAt IS NULL
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
WITH x, min(f.at) AS at
WHERE x.confirmedAt IS NULL
SET x.confirmedAt = at;
