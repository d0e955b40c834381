-- Up Migration
-- Reviews resolved by a human, and the signed review.resolved webhook (contract §3, §6).

-- A resolution is stored once, with who made it and why; `status` says pending/approved/denied.
ALTER TABLE reviews ADD COLUMN resolved_by text;
ALTER TABLE reviews ADD CONSTRAINT reviews_resolved_once
  CHECK ((status = 'pending') = (resolved_at IS NULL));

-- One endpoint per tenant and mode (`doorman webhook set`).
CREATE TABLE webhook_endpoints (
  tenant_id   text NOT NULL REFERENCES tenants (id),
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  url         text NOT NULL,
  enabled     boolean NOT NULL DEFAULT true,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, mode)
);

-- Signing secrets. The current one has valid_until NULL; `webhook set` makes a new current one
-- and gives the previous a valid_until (the rotation overlap), during which both sign.
CREATE TABLE webhook_secrets (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id),
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  secret      text NOT NULL CHECK (secret LIKE 'whsec\_%'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  valid_until timestamptz
);
CREATE INDEX webhook_secrets_scope ON webhook_secrets (tenant_id, mode, created_at DESC);
-- At most one current secret per scope.
CREATE UNIQUE INDEX webhook_secrets_current ON webhook_secrets (tenant_id, mode) WHERE valid_until IS NULL;

-- One delivery per resolution. `payload` holds the exact bytes sent on every attempt, frozen at
-- resolution; `signature` the Service-Signature header, frozen at the first attempt.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL REFERENCES tenants (id),
  mode             text NOT NULL CHECK (mode IN ('live', 'test')),
  event_id         text NOT NULL,
  payload          text NOT NULL,
  signature        text,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error       text,
  next_attempt_at  timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz,
  FOREIGN KEY (tenant_id, mode, event_id) REFERENCES reviews (tenant_id, mode, event_id)
);
CREATE INDEX webhook_deliveries_newest ON webhook_deliveries (tenant_id, mode, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (tenant_id, mode, status, created_at DESC);

-- Every attempt, for operators: status code, latency, error, the first 1 KiB of the answer.
CREATE TABLE webhook_attempts (
  delivery_id   text NOT NULL REFERENCES webhook_deliveries (id),
  attempt       integer NOT NULL,
  at            timestamptz NOT NULL DEFAULT now(),
  status_code   integer,
  latency_ms    integer NOT NULL,
  error         text,
  response_body text,
  PRIMARY KEY (delivery_id, attempt, at)
);

-- Down Migration
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_secrets;
DROP TABLE webhook_endpoints;
ALTER TABLE reviews DROP CONSTRAINT reviews_resolved_once;
ALTER TABLE reviews DROP COLUMN resolved_by;
