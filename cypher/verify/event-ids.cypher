// event-ids: every event id of a scope in the graph, streamed, for `doorman graph verify` to find
// events Postgres no longer holds. Read-only. Parameters: $tenantId, $mode. Returns one row per
// event: id.
MATCH (e:Event {tenantId: $tenantId, mode: $mode})
RETURN e.id AS id
