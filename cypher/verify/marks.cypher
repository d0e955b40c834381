// marks: every mark of a scope in the graph (a (:Feedback) node), streamed, for `doorman graph
// verify`: whether it stands and what it is on. Read-only. Parameters: $tenantId, $mode. Returns
// one row per mark: key, outcome, retracted (bool), on (how many anchors it is on).
MATCH (f:Feedback {tenantId: $tenantId, mode: $mode})
RETURN f.key AS key, f.outcome AS outcome, f.retractedAt IS NOT NULL AS retracted, COUNT { (f)-[:ON]->() } AS on
