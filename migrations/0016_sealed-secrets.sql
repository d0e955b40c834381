-- Up Migration
-- Secrets at rest are sealed: webhook signing secrets, device-token signing keys and
-- the service's own secrets are stored encrypted (AES-256-GCM) under data keys, and the data
-- keys are stored wrapped under a master key that lives only in the configuration (SECRETS_KEY;
-- src/vault/). API keys and console sessions stay hashed.
CREATE TABLE secret_data_keys (
  id          text PRIMARY KEY,
  -- The data key, encrypted under the master key named by master_kid.
  wrapped     text NOT NULL,
  master_kid  text NOT NULL,
  -- The one key that seals new secrets; the others only open what they sealed.
  current     boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX secret_data_keys_one_current ON secret_data_keys ((true)) WHERE current;

-- Each secret gains its sealed form; the plain column empties once `doorman migrate` has sealed
-- the rows written before (it needs the master key, which SQL never sees).
ALTER TABLE webhook_secrets ADD COLUMN sealed text, ALTER COLUMN secret DROP NOT NULL,
  ADD CONSTRAINT webhook_secrets_stored CHECK (secret IS NOT NULL OR sealed IS NOT NULL);
ALTER TABLE device_signing_keys ADD COLUMN sealed text, ALTER COLUMN secret DROP NOT NULL,
  ADD CONSTRAINT device_signing_keys_stored CHECK (secret IS NOT NULL OR sealed IS NOT NULL);
ALTER TABLE service_secrets ADD COLUMN sealed text, ALTER COLUMN secret DROP NOT NULL,
  ADD CONSTRAINT service_secrets_stored CHECK (secret IS NOT NULL OR sealed IS NOT NULL);

-- A delivery's signature is made at each attempt with the secrets valid then; none is kept.
ALTER TABLE webhook_deliveries DROP COLUMN signature;

-- Down Migration
-- Going back would lose every sealed secret: refused while any exists.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_secrets WHERE secret IS NULL) OR EXISTS (SELECT 1 FROM device_signing_keys WHERE secret IS NULL)
     OR EXISTS (SELECT 1 FROM service_secrets WHERE secret IS NULL) THEN
    RAISE EXCEPTION 'stored secrets are sealed; the previous schema cannot hold them';
  END IF;
END $$;
ALTER TABLE webhook_deliveries ADD COLUMN signature text;
ALTER TABLE service_secrets DROP CONSTRAINT service_secrets_stored, DROP COLUMN sealed;
ALTER TABLE device_signing_keys DROP CONSTRAINT device_signing_keys_stored, DROP COLUMN sealed;
ALTER TABLE webhook_secrets DROP CONSTRAINT webhook_secrets_stored, DROP COLUMN sealed;
DROP TABLE secret_data_keys;
