// A (:Feedback) node records that the graph writer applied one mark (a feedback outcome or a
// review resolution), so a retried batch never applies it twice (cypher/graph/apply-marks).
// Parameters: none. Returns: nothing. Idempotent.
CREATE CONSTRAINT feedback_key IF NOT EXISTS FOR (n:Feedback) REQUIRE (n.tenantId, n.mode, n.key) IS UNIQUE;
