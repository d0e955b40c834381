-- Up Migration
-- A verdict reads the graph, then its write looks in the outbox for links that join the event and
-- are not applied yet. A link the graph writer applies, and deletes from the outbox, between that
-- read and that write is in neither, so the writer moves each applied link here, in the
-- statement that deletes it from the outbox, and keeps it for a minute: the verdict's
-- write also looks here, at the scope's links applied after the seq its graph read saw applied
-- (the scope's (:LinksApplied) node, cypher/graph/stamp-applied-links). Only src/graph/ writes
-- this table (rule 13, graph-outbox-store.ts). Retention and erasure remove an event's row here
-- with its pending link (rule 14: through deps.graphOutbox.dropPending); the rest go after a
-- minute.
CREATE TABLE graph_applied_links (
  seq         bigint PRIMARY KEY,
  tenant_id   text NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  lane        smallint GENERATED ALWAYS AS (hashtext(tenant_id || ':' || mode) & 15) STORED,
  event_id    text,
  -- As graph_outbox.keys: what the link joins (src/graph/identity-graph.ts linkKeys).
  keys        text[] NOT NULL,
  account     text,
  ids         jsonb NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- The verdict's check (the scope's links applied after a seq), and retention and erasure by scope.
CREATE INDEX graph_applied_links_scope ON graph_applied_links (tenant_id, mode, seq);
-- The writer's purge, lane by lane (one writer per lane: purges never contend).
CREATE INDEX graph_applied_links_lane ON graph_applied_links (lane, applied_at);

-- Down Migration
DROP TABLE graph_applied_links;
