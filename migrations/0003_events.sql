-- Up Migration
-- Every screened event, stored with its verdict before the response is sent (contract §3).
-- Scope first in every key (tenant_id, mode): a read without both finds nothing.
CREATE TABLE events (
  tenant_id         text NOT NULL,
  mode              text NOT NULL CHECK (mode IN ('live', 'test')),
  id                text NOT NULL,
  event_type        text NOT NULL,
  verdict           text NOT NULL CHECK (verdict IN ('allow', 'review', 'block')),
  reasons           jsonb NOT NULL,
  policy_version    text NOT NULL,
  recommended_action text,
  -- The moment of judgement (contract: created_at is when the event was judged).
  created_at        timestamptz NOT NULL,
  -- Write-once (PATCH /v1/events/{id}); the store enforces it with a conditional update.
  external_user_id  text,
  email             text,
  -- The request as received, and the signals the engine saw: every decision can be explained
  -- and replayed against a later policy.
  request           jsonb NOT NULL,
  signals           jsonb NOT NULL,
  PRIMARY KEY (tenant_id, mode, id),
  FOREIGN KEY (tenant_id) REFERENCES tenants (id)
);

-- Keyset pagination, newest first, with and without the two filters the list offers.
CREATE INDEX events_newest ON events (tenant_id, mode, created_at DESC, id DESC);
CREATE INDEX events_newest_by_type ON events (tenant_id, mode, event_type, created_at DESC, id DESC);
CREATE INDEX events_newest_by_verdict ON events (tenant_id, mode, verdict, created_at DESC, id DESC);
-- Feedback subjects resolve by external user id and by email.
CREATE INDEX events_by_user ON events (tenant_id, mode, external_user_id) WHERE external_user_id IS NOT NULL;
CREATE INDEX events_by_email ON events (tenant_id, mode, lower(email)) WHERE email IS NOT NULL;

-- Down Migration
DROP TABLE events;
