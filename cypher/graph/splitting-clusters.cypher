// splitting-clusters: a scope's clusters whose split is not finished (cypher/graph/
// defer-large-splits), for the graph writer to finish (src/graph/split-in-steps.ts).
// Parameters: $tenantId, $mode. Returns rows: id, at (epoch ms: the time the split is computed at).
MATCH (c:Splitting {tenantId: $tenantId, mode: $mode})
WHERE c:Cluster
RETURN c.id AS id, c.splitAt AS at
