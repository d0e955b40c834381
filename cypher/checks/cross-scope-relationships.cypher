// cross-scope-relationships: the relationships whose two ends are not in one scope (the same
// tenantId and mode, both present), by type. Must find none: the guard on analysts' own Cypher
// relies on it (docs/graph.md). Reads every relationship once: `doorman graph check`, daily.
// Parameters: none. Returns one row per offending type: type, relationships.
MATCH (a)-[r]->(b)
WHERE NOT coalesce(a.tenantId = b.tenantId AND a.mode = b.mode, false)
RETURN type(r) AS type, count(r) AS relationships
