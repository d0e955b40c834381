// Warm-up only (src/warm-up.ts): scans each natural-key index of the identity graph, so its
// pages are in Neo4j's page cache before the first verdict reads them. Deliberately unscoped: it
// counts every tenant's nodes and returns nothing else. A composite index hint needs a predicate
// on every property of the index; existence predicates keep it a scan of the whole index.
// Parameters: none. Returns: identifiers, accounts, clusters, events (counts).
CALL {
  MATCH (n:Identifier) USING INDEX n:Identifier(tenantId, mode, kind, value)
  WHERE n.tenantId IS NOT NULL AND n.mode IS NOT NULL AND n.kind IS NOT NULL AND n.value IS NOT NULL
  RETURN count(n) AS identifiers
}
CALL {
  MATCH (n:Account) USING INDEX n:Account(tenantId, mode, externalId)
  WHERE n.tenantId IS NOT NULL AND n.mode IS NOT NULL AND n.externalId IS NOT NULL
  RETURN count(n) AS accounts
}
CALL {
  MATCH (n:Cluster) USING INDEX n:Cluster(tenantId, mode, id)
  WHERE n.tenantId IS NOT NULL AND n.mode IS NOT NULL AND n.id IS NOT NULL
  RETURN count(n) AS clusters
}
CALL {
  MATCH (n:Event) USING INDEX n:Event(tenantId, mode, id)
  WHERE n.tenantId IS NOT NULL AND n.mode IS NOT NULL AND n.id IS NOT NULL
  RETURN count(n) AS events
}
RETURN identifiers, accounts, clusters, events
