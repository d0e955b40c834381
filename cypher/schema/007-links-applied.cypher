// One (:LinksApplied) node per scope holds the seq of the scope's last outbox link the graph
// writer applied (cypher/graph/stamp-applied-links); the verdict's graph read returns it, so its
// write knows which applied links the read may not have seen (docs/graph.md, "Fresh reads").
// Parameters: none. Returns: nothing. Idempotent.
CREATE CONSTRAINT links_applied_key IF NOT EXISTS FOR (n:LinksApplied) REQUIRE (n.tenantId, n.mode) IS UNIQUE;
