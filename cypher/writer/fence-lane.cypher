// fence-lane: the first statement of every graph-writer batch. The lane's fence node holds the
// highest epoch that has written to the lane (graph_lane_epochs in Postgres hands a new epoch to
// each process that takes the lane). A batch of that epoch or a newer one passes, raises the
// fence and holds its lock to the end of the transaction, so batches of one lane never overlap; a
// batch of an older epoch (a writer that lost the lane, or a Postgres whose epochs fell behind
// the graph's, e.g. restored from a backup) does not pass, and the writer aborts it.
// Keyed by the lane's fence_key, made once per lane and Postgres database (migration 0022), so
// two databases on one Neo4j never share a fence. Not a tenant's: lanes are the writer's own
// bookkeeping, shared by the scopes that hash to them, and a fence node has no relationship to
// anything. It carries the writer's own scope (tenantId '', mode 'internal'), which no session can
// have, so analysts' own Cypher can never reach it (every node has a scope: `doorman graph check`).
// Parameters: $key (string), $lane (int), $epoch (int).
// Returns one row: passed (boolean) and fence, the fence's epoch after this statement.
MERGE (f:LaneFence {key: $key})
ON CREATE SET f.epoch = $epoch, f.lane = $lane, f.tenantId = '', f.mode = 'internal'
WITH f, f.epoch <= $epoch AS passed
FOREACH (_ IN CASE WHEN passed THEN [1] ELSE [] END | SET f.epoch = $epoch)
RETURN passed, f.epoch AS fence
