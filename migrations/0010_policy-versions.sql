-- Up Migration
-- Policies as code (docs/policies.md). Every publication of a tenant's policy document, per
-- mode, stored for ever: policy_version is <YYYY-MM-DD>.<n>, n counting that day's publications
-- for the scope (after any shipped default of the same day), so a version names one document.
CREATE TABLE policy_versions (
  tenant_id       text NOT NULL REFERENCES tenants (id),
  mode            text NOT NULL CHECK (mode IN ('live', 'test')),
  policy_version  text NOT NULL CHECK (policy_version ~ '^\d{4}-\d{2}-\d{2}\.[1-9]\d*$'),
  -- The validated document, with its version filled in.
  document        jsonb NOT NULL,
  note            text,
  published_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- Publication order (publications of a scope are serialised by an advisory lock): the
  -- version in force is the scope's highest seq, whatever the clocks said.
  seq             bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (tenant_id, mode, policy_version)
);
CREATE INDEX policy_versions_newest ON policy_versions (tenant_id, mode, seq DESC);

-- Published versions are immutable: no update, no delete, no truncate, whoever asks.
CREATE FUNCTION policy_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'policy versions are immutable: publish a new version instead'
    USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER policy_versions_no_update BEFORE UPDATE OR DELETE ON policy_versions
  FOR EACH ROW EXECUTE FUNCTION policy_versions_immutable();
CREATE TRIGGER policy_versions_no_truncate BEFORE TRUNCATE ON policy_versions
  FOR EACH STATEMENT EXECUTE FUNCTION policy_versions_immutable();

-- The published version evaluated beside the live one on every verdict of the scope (shadow).
-- One at a time; setting another replaces it, clearing deletes the row.
CREATE TABLE policy_shadows (
  tenant_id       text NOT NULL,
  mode            text NOT NULL CHECK (mode IN ('live', 'test')),
  policy_version  text NOT NULL,
  set_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, mode),
  FOREIGN KEY (tenant_id, mode, policy_version) REFERENCES policy_versions (tenant_id, mode, policy_version)
);

-- The engine that judged each event, beside the policy version (src/engine/engine-version.ts).
-- NULL for rows written before this column, and for decisions that failed open.
ALTER TABLE events ADD COLUMN engine_version text;

-- Down Migration
ALTER TABLE events DROP COLUMN engine_version;
DROP TABLE policy_shadows;
DROP TABLE policy_versions;
DROP FUNCTION policy_versions_immutable();
