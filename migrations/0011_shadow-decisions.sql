-- Up Migration
-- What a shadow policy would have decided for each live verdict of its scope, stored after the
-- response (never on its time) and never returned to the caller. live_verdict is copied so the
-- shadow report reads one table per page of events.
CREATE TABLE shadow_decisions (
  tenant_id           text NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('live', 'test')),
  policy_version      text NOT NULL,
  event_id            text NOT NULL,
  engine_version      text,
  verdict             text NOT NULL CHECK (verdict IN ('allow', 'review', 'block')),
  reasons             jsonb NOT NULL,
  recommended_action  text,
  live_verdict        text NOT NULL CHECK (live_verdict IN ('allow', 'review', 'block')),
  -- The event's created_at, so a report over a time range scans one index.
  created_at          timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, mode, policy_version, event_id),
  FOREIGN KEY (tenant_id, mode, event_id) REFERENCES events (tenant_id, mode, id)
);
CREATE INDEX shadow_decisions_by_time ON shadow_decisions (tenant_id, mode, policy_version, created_at, event_id);

-- Down Migration
DROP TABLE shadow_decisions;
