// split-done: a cluster's split in steps is finished (src/graph/split-in-steps.ts): it is no longer
// :Splitting. Run only by the graph writer, in the last step's transaction.
// Parameters: $tenantId, $mode, $id. Returns one row: done (0 when the cluster is gone).
OPTIONAL MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: $id}) WHERE c:Splitting
REMOVE c:Splitting, c.splitAt
RETURN count(c) AS done
