// stamp-applied-links: in the transaction that applies a batch's links (after graph/apply-links),
// records per scope the seq of its last link applied, on the scope's one (:LinksApplied) node. The
// writer applies a lane's rows in seq order, one batch at a time, so every link of the scope up
// to that seq is in the graph once this commits. The verdict's graph read returns it
// (graph/read-cluster's appliedSeq), and the verdict's write looks at the scope's links applied
// after it (src/graph/graph-outbox-store.ts, pendingLinksSql). Never lowered: a batch applied
// again changes nothing.
// Parameters: $scopes, a list of {tenantId, mode, seq (int)}.
// Returns nothing.
UNWIND $scopes AS s
MERGE (n:LinksApplied {tenantId: s.tenantId, mode: s.mode})
  ON CREATE SET n.seq = s.seq
SET n.seq = CASE WHEN n.seq < s.seq THEN s.seq ELSE n.seq END
