-- Up Migration
-- Backtests of a candidate policy over stored events (doorman policy backtest). Each run is a
-- row, fetchable again by id; a long one runs as a pg-boss job that updates progress here.
CREATE TABLE policy_backtests (
  id              text PRIMARY KEY,
  tenant_id       text NOT NULL REFERENCES tenants (id),
  mode            text NOT NULL CHECK (mode IN ('live', 'test')),
  -- The candidate document, whether it came from a file or a published version.
  candidate       jsonb NOT NULL,
  candidate_version text,
  range_from      timestamptz NOT NULL,
  range_to        timestamptz NOT NULL,
  event_type      text,
  status          text NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
  events_total    integer NOT NULL DEFAULT 0,
  events_done     integer NOT NULL DEFAULT 0,
  -- The report (matrix, codes, labels, flip count): set when done.
  result          jsonb,
  error           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz
);
CREATE INDEX policy_backtests_scope ON policy_backtests (tenant_id, mode, created_at DESC);

-- The events whose verdict the candidate changes, in the order they were evaluated; paged by seq.
CREATE TABLE policy_backtest_flips (
  backtest_id     text NOT NULL REFERENCES policy_backtests (id) ON DELETE CASCADE,
  seq             integer NOT NULL,
  event_id        text NOT NULL,
  event_type      text NOT NULL,
  created_at      timestamptz NOT NULL,
  before          text NOT NULL,
  after           text NOT NULL,
  added           text[] NOT NULL,
  removed         text[] NOT NULL,
  label           text,
  PRIMARY KEY (backtest_id, seq)
);

-- Down Migration
DROP TABLE policy_backtest_flips;
DROP TABLE policy_backtests;
