-- Up Migration
-- Tenants and their API keys. A key alone decides tenant and mode (contract §5).

CREATE TABLE tenants (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Only a hash of each key is stored; the key is shown once, at creation.
-- key_hash is the lookup on every authenticated request, hence the primary key.
CREATE TABLE api_keys (
  key_hash    text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id),
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  kind        text NOT NULL CHECK (kind IN ('secret', 'publishable')),
  -- Prefix and last four characters, so an operator can tell keys apart without the secret.
  hint        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, mode);

-- Down Migration
DROP TABLE api_keys;
DROP TABLE tenants;
