// apply-retractions: takes marks back (`doorman feedback retract`), in the lane's order after
// every link and mark committed before them. The (:Feedback) node stays, with `retractedAt`, so a
// re-applied batch changes nothing; the clusters its subject lies in are returned, and the graph
// writer recomputes their facts from the marks still standing (cypher/graph/recompute-clusters),
// and the accounts it was about (cypher/graph/recompute-account-marks).
// Parameters: $retractions, a list of {tenantId, mode, key, at (epoch ms)}.
// Returns one row: clusters (list of {tenantId, mode, id}).
UNWIND $retractions AS r
MATCH (f:Feedback {tenantId: r.tenantId, mode: r.mode, key: r.key})
SET f.retractedAt = r.at
WITH r, f
CALL {
  WITH f
  MATCH (f)-[:ON]->(x)
  OPTIONAL MATCH (x)-[:BY|USED]->(n)-[:IN]->(ec:Cluster) WHERE x:Event
  OPTIONAL MATCH (x)-[:IN]->(xc:Cluster)
  WITH collect(DISTINCT ec) + collect(DISTINCT xc) AS cs
  UNWIND cs AS c
  RETURN collect(DISTINCT {tenantId: c.tenantId, mode: c.mode, id: c.id}) AS clusters
}
RETURN reduce(s = [], x IN collect(clusters) | s + [y IN x WHERE NOT y IN s]) AS clusters
