-- Up Migration
-- Secrets the service generates and keeps itself (an operator never invents
-- one), e.g. the device-token signing key. One row per purpose; the first writer wins.
CREATE TABLE service_secrets (
  name        text PRIMARY KEY,
  secret      bytea NOT NULL CHECK (length(secret) >= 32),
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE service_secrets;
