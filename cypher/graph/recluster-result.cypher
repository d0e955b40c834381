// recluster-result: what the graph writer recorded for one `doorman graph recluster`
// (cypher/graph/record-recluster), read once it is applied. Read-only.
// Parameters: $tenantId, $mode, $id. Returns at most one row: clustersBefore, clustersAfter, split, merged.
MATCH (x:Recluster {tenantId: $tenantId, mode: $mode, id: $id})
RETURN x.clustersBefore AS clustersBefore, x.clustersAfter AS clustersAfter, x.split AS split, x.merged AS merged
