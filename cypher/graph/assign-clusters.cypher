// assign-clusters: writes the parts the graph writer computed (cypher/graph/cluster-members):
// each part's members move into its cluster (created when new), members that may not be in a
// cluster (an identifier that stopped linking) leave theirs, and clusters left without members
// go. Facts are recomputed afterwards (cypher/graph/recompute-clusters). Run only by the graph
// writer, in the lane's order.
// Parameters: $tenantId, $mode, $parts (list of {id, nodes (elementIds)}), $detach (elementIds),
//   $emptied (cluster ids that may have no member left).
// Returns one row: moved (members that changed cluster).
CALL {
  UNWIND $detach AS x
  MATCH (m)-[r:IN]->(:Cluster) WHERE elementId(m) = x
  DELETE r
  RETURN count(*) AS detached
}
CALL {
  UNWIND $parts AS p
  MERGE (c:Cluster {tenantId: $tenantId, mode: $mode, id: p.id})
    ON CREATE SET c.size = 0, c.accounts = 0, c.confirmedAbuse = false, c.falsePositive = false, c.chargebacks = 0,
      c.suppressed = [], c.cardAt = [], c.cardValue = [], c.cardCountry = [], c.abuse = [], c.accountAt = []
  WITH c, p
  UNWIND p.nodes AS x
  MATCH (m) WHERE elementId(m) = x
  OPTIONAL MATCH (m)-[r:IN]->(old:Cluster)
  WITH c, m, collect(r) AS rs, collect(old) AS olds
  WHERE NOT c IN olds OR size(olds) > 1
  FOREACH (r IN rs | DELETE r)
  CREATE (m)-[:IN]->(c)
  RETURN count(*) AS moved
}
CALL {
  UNWIND $emptied AS id
  MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: id}) WHERE NOT EXISTS { ()-[:IN]->(c) }
  DETACH DELETE c
  RETURN count(*) AS deleted
}
RETURN moved
