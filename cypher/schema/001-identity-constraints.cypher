// Uniqueness of every identity-graph node's natural key within a tenant and mode.
// Community edition offers uniqueness constraints only (no existence or key constraints),
// so presence of tenantId and mode is guaranteed by the writing statements, not the schema.
// Parameters: none. Returns: nothing. Idempotent (IF NOT EXISTS).
CREATE CONSTRAINT account_key IF NOT EXISTS FOR (n:Account) REQUIRE (n.tenantId, n.mode, n.externalId) IS UNIQUE;
CREATE CONSTRAINT identifier_key IF NOT EXISTS FOR (n:Identifier) REQUIRE (n.tenantId, n.mode, n.kind, n.value) IS UNIQUE;
CREATE CONSTRAINT event_key IF NOT EXISTS FOR (n:Event) REQUIRE (n.tenantId, n.mode, n.id) IS UNIQUE;
CREATE CONSTRAINT cluster_key IF NOT EXISTS FOR (n:Cluster) REQUIRE (n.tenantId, n.mode, n.id) IS UNIQUE;
