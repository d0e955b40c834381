// email-known: whether the graph holds an email identifier (feedback about an email that
// Postgres knows only in another spelling, e.g. a gmail address with dots). Read-only.
// Parameters: $tenantId, $mode, $value (the normalised email). Returns one row: known.
OPTIONAL MATCH (i:Identifier {tenantId: $tenantId, mode: $mode, kind: 'email', value: $value})
RETURN i IS NOT NULL AS known
