// Links that expire (the tenant's link policy, docs/graph.md "Link policy") are found by their
// expiry time: cypher/graph/expire-links removes `expiresAt` once a link expired, so these
// indexes hold only the links still to expire.
// Parameters: none. Returns: nothing. Idempotent.
CREATE INDEX linked_expires IF NOT EXISTS FOR ()-[k:LINKED]-() ON (k.expiresAt);
CREATE INDEX used_expires IF NOT EXISTS FOR ()-[u:USED]-() ON (u.expiresAt);
CREATE CONSTRAINT recluster_key IF NOT EXISTS FOR (n:Recluster) REQUIRE (n.tenantId, n.mode, n.id) IS UNIQUE;
