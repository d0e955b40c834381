-- Up Migration
-- Analysts write their own read-only Cypher, through the guard (docs/graph.md).
--
-- A tenant's own saved queries, beside the reviewed files of cypher/analyst/: stored as the
-- analyst wrote them (the guard scopes them on every run), with the parameters their text uses.
-- The tenant's, not a mode's: like analysts, a query serves both modes (rule 6 scopes the data it
-- reads, which the guard binds to the session's mode).
CREATE TABLE tenant_queries (
  tenant_id    text NOT NULL REFERENCES tenants (id),
  id           text NOT NULL CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  description  text NOT NULL CHECK (length(description) <= 500),
  cypher       text NOT NULL,
  parameters   text[] NOT NULL,
  created_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

-- Who may run free-form Cypher in the tenant: admins (the default) or every analyst.
CREATE TABLE graph_query_settings (
  tenant_id        text PRIMARY KEY REFERENCES tenants (id),
  free_form_roles  text NOT NULL CHECK (free_form_roles IN ('admin', 'analyst')),
  updated_by       text NOT NULL,
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- An analyst's own history of runs is read from the audit log.
CREATE INDEX console_audit_by_analyst ON console_audit (tenant_id, analyst_id, action, at DESC);

-- Down Migration
DROP INDEX console_audit_by_analyst;
DROP TABLE graph_query_settings;
DROP TABLE tenant_queries;
