// A mark's subject (anchorKind, anchorValue) on its (:Feedback) node, so a link that brings the
// subject later finds the marks waiting for it with one index seek (cypher/graph/apply-links).
// Parameters: none. Returns: nothing. Idempotent.
CREATE INDEX feedback_subject IF NOT EXISTS FOR (n:Feedback) ON (n.tenantId, n.mode, n.anchorKind, n.anchorValue);
