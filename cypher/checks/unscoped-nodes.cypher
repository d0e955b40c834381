// unscoped-nodes: the nodes without a tenantId or a mode, by labels. Must find none: analysts' own
// Cypher reaches only its scope's nodes, and a node with no scope would be one it cannot be
// kept from (docs/graph.md). Reads every node once: `doorman graph check`.
// Parameters: none. Returns one row per set of labels: labels, nodes.
MATCH (n)
WHERE n.tenantId IS NULL OR n.mode IS NULL
RETURN labels(n) AS labels, count(n) AS nodes
