// record-recluster: what one `doorman graph recluster` changed, recorded once by the graph writer
// so the command can print it (like erasures: ids and counts only).
// Parameters: $tenantId, $mode, $id, $before, $after, $split, $merged. Returns nothing.
MERGE (x:Recluster {tenantId: $tenantId, mode: $mode, id: $id})
SET x.clustersBefore = $before, x.clustersAfter = $after, x.split = $split, x.merged = $merged
