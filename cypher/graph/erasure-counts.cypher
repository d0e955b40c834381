// erasure-counts: what the graph writer removed for one erasure (cypher/graph/apply-forgets),
// read once it is applied. Read-only.
// Parameters: $tenantId, $mode, $id (the erasure id). Returns at most one row: events, accounts, identifiers.
MATCH (x:Erasure {tenantId: $tenantId, mode: $mode, id: $id})
RETURN x.events AS events, x.accounts AS accounts, x.identifiers AS identifiers
