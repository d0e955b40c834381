-- Up Migration

-- Tenant allow and block lists (`doorman list`). Values are stored normalised
-- (see src/lists/list-values.ts) so the verdict path matches them with one indexed lookup.
CREATE TABLE list_entries (
  tenant_id   text NOT NULL REFERENCES tenants (id),
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  list        text NOT NULL CHECK (list IN ('allow', 'block')),
  kind        text NOT NULL CHECK (kind IN ('email', 'email_domain', 'ip', 'device', 'card_fingerprint', 'external_user_id')),
  value       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, mode, kind, value, list)
);

-- Idempotency records of POST /v1/verdict (contract §4.1, §7, §8): scoped to tenant and mode,
-- kept 24 h. body_sha256 is the hash of the exact bytes received; response holds the exact
-- bytes sent, so a replay is byte-identical. A 'pending' row is a claim by a request in flight.
CREATE TABLE idempotency_keys (
  tenant_id    text NOT NULL,
  mode         text NOT NULL CHECK (mode IN ('live', 'test')),
  key          text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  body_sha256  bytea NOT NULL,
  state        text NOT NULL CHECK (state IN ('pending', 'done')),
  event_id     text,
  response     text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, mode, key),
  CHECK (state = 'pending' OR (response IS NOT NULL AND event_id IS NOT NULL))
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- The review queue: one row per `review` verdict, written with the event.
CREATE TABLE reviews (
  tenant_id    text NOT NULL,
  mode         text NOT NULL CHECK (mode IN ('live', 'test')),
  event_id     text NOT NULL,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied')),
  created_at   timestamptz NOT NULL,
  resolved_at  timestamptz,
  note         text,
  PRIMARY KEY (tenant_id, mode, event_id),
  FOREIGN KEY (tenant_id, mode, event_id) REFERENCES events (tenant_id, mode, id)
);
CREATE INDEX reviews_pending ON reviews (tenant_id, mode, created_at) WHERE status = 'pending';

-- Down Migration
DROP TABLE reviews;
DROP TABLE idempotency_keys;
DROP TABLE list_entries;
