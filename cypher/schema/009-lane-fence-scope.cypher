// Fences made by an older writer carry no scope: they get the writer's own (tenantId '', mode
// 'internal'), which no session can have, so no node of the graph is without one and analysts'
// own Cypher can reach none of them (cypher/writer/fence-lane makes new ones so).
// Parameters: none. Returns: nothing. Idempotent.
MATCH (f:LaneFence) WHERE f.tenantId IS NULL OR f.mode IS NULL SET f.tenantId = '', f.mode = 'internal';
