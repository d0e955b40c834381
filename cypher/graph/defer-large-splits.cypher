// defer-large-splits: of the clusters to split (an identifier stopped linking), those larger than
// $max members are not split in the transaction that found them: they are marked :Splitting (with
// the time the split is computed at) and split afterwards in transactions of a bounded size
// (src/graph/split-in-steps.ts). A cluster already :Splitting stays so. Until then its members
// read the cluster's facts as before the split (a superset: more accounts, every mark). Run only by
// the graph writer, in the lane's order.
// Parameters: $tenantId, $mode, $ids (cluster ids), $max (int), $at (epoch ms).
// Returns one row: deferred (ids of the clusters marked).
UNWIND $ids AS id
MATCH (c:Cluster {tenantId: $tenantId, mode: $mode, id: id})
WHERE c.size > $max OR c:Splitting
SET c:Splitting, c.splitAt = CASE WHEN c.splitAt IS NULL OR c.splitAt < $at THEN $at ELSE c.splitAt END
RETURN collect(c.id) AS deferred
