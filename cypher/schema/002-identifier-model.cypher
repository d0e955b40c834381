// Identifiers share one label and one natural key (kind, value), with Email, Device and Card as
// extra labels for analysts. Graphs created before that had per-label constraints; they go.
// Parameters: none. Returns: nothing. Idempotent.
DROP CONSTRAINT email_key IF EXISTS;
DROP CONSTRAINT device_key IF EXISTS;
DROP CONSTRAINT card_key IF EXISTS;
CREATE INDEX identifier_hub IF NOT EXISTS FOR (n:Identifier) ON (n.tenantId, n.mode, n.hub);
CREATE INDEX cluster_size IF NOT EXISTS FOR (n:Cluster) ON (n.tenantId, n.mode, n.accounts);
