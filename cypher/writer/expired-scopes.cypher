// expired-scopes: the scopes holding links whose time ran out and that are not yet marked expired
// (cypher/graph/expire-links), found through the expiry indexes: cheap when none are due; and
// those holding a cluster whose split in steps is unfinished (src/graph/split-in-steps.ts: the
// sweep finishes it).
// Parameters: $at (epoch ms). Returns rows: tenantId, mode (at most 100).
CALL {
  MATCH (a:Account)-[k:LINKED]->(:Identifier) WHERE k.expiresAt <= $at
  RETURN a.tenantId AS tenantId, a.mode AS mode
  UNION
  MATCH (e:Event)-[u:USED]->(:Identifier) WHERE u.expiresAt <= $at
  RETURN e.tenantId AS tenantId, e.mode AS mode
  UNION
  MATCH (c:Splitting) WHERE c:Cluster
  RETURN c.tenantId AS tenantId, c.mode AS mode
}
RETURN DISTINCT tenantId, mode LIMIT 100
