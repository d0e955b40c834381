// An (:Erasure) node records what the graph writer removed for one erasure (cypher/graph/
// apply-forgets), once: ids and counts only, never an erased value.
// Parameters: none. Returns: nothing. Idempotent.
CREATE CONSTRAINT erasure_key IF NOT EXISTS FOR (n:Erasure) REQUIRE (n.tenantId, n.mode, n.id) IS UNIQUE;
