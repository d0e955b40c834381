-- Up Migration
-- Decide on a read, commit once. The verdict reads the identity graph; what the graph
-- must gain (an event's links, a feedback mark, a PATCH's account) is written here, in the same
-- statement as the row that causes it, and applied after commit by the ordered graph writer
-- (src/graph/graph-writer.ts). Rows are deleted once applied. `lane` partitions scopes so that
-- one writer at a time applies a scope's rows, in `seq` order: concurrent merges of the same
-- clusters never interleave, and a mark never overtakes the link it follows.
CREATE TABLE graph_outbox (
  seq         bigserial PRIMARY KEY,
  tenant_id   text NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  -- 16 lanes, derived from the scope (so no writer of a row can get it wrong).
  lane        smallint GENERATED ALWAYS AS (hashtext(tenant_id || ':' || mode) & 15) STORED,
  kind        text NOT NULL CHECK (kind IN ('link', 'mark')),
  -- The event a link belongs to (reporting and tests); null for marks.
  event_id    text,
  payload     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- Set when Neo4j rejected this one row as invalid (not an outage): it is kept for an operator
  -- and skipped, so one bad row cannot stop its lane.
  failed_at   timestamptz,
  error       text
);
CREATE INDEX graph_outbox_lane ON graph_outbox (lane, seq) WHERE failed_at IS NULL;
CREATE INDEX graph_outbox_scope ON graph_outbox (tenant_id, mode);

-- Idempotency records are written in the verdict's own statement, completed or not at all: a
-- twin blocks on the primary key until the first commits, and a process that dies mid-verdict
-- leaves nothing behind (no 'pending' claim that could outlive it).
DELETE FROM idempotency_keys WHERE state = 'pending';
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_check;
ALTER TABLE idempotency_keys DROP COLUMN state;
ALTER TABLE idempotency_keys ALTER COLUMN event_id SET NOT NULL;
ALTER TABLE idempotency_keys ALTER COLUMN response SET NOT NULL;

-- Feedback is applied to the graph through the outbox, written with the feedback row: there is
-- no separate "applied" state to track any more.
ALTER TABLE feedback DROP COLUMN applied_at;

-- Down Migration
ALTER TABLE feedback ADD COLUMN applied_at timestamptz;
ALTER TABLE idempotency_keys ALTER COLUMN response DROP NOT NULL;
ALTER TABLE idempotency_keys ALTER COLUMN event_id DROP NOT NULL;
ALTER TABLE idempotency_keys ADD COLUMN state text NOT NULL DEFAULT 'done' CHECK (state IN ('pending', 'done'));
DROP TABLE graph_outbox;
