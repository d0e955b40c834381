-- Up Migration
-- Data lifecycle: retention removes old events, erasure removes a person. Both reach
-- the identity graph through the outbox (kind 'forget'), so the lane's one writer applies them in
-- order with the links and marks around them.
ALTER TABLE graph_outbox DROP CONSTRAINT graph_outbox_kind_check;
ALTER TABLE graph_outbox ADD CONSTRAINT graph_outbox_kind_check CHECK (kind IN ('link', 'mark', 'forget'));

-- The erasure log (GDPR Art. 17): who asked, when, what kind of subject and how much went, never
-- the erased values themselves. accounts/identifiers are the graph's counts, filled in once the
-- graph writer has applied the erasure.
CREATE TABLE erasures (
  id                  text PRIMARY KEY,
  tenant_id           text NOT NULL REFERENCES tenants (id),
  mode                text NOT NULL CHECK (mode IN ('live', 'test')),
  subject_kind        text NOT NULL CHECK (subject_kind IN ('external_user_id', 'email')),
  requested_by        text NOT NULL,
  requested_at        timestamptz NOT NULL,
  events              integer NOT NULL,
  webhook_deliveries  integer NOT NULL,
  feedback            integer NOT NULL,
  list_entries        integer NOT NULL,
  velocity_members    integer NOT NULL,
  accounts            integer,
  identifiers         integer,
  graph_applied_at    timestamptz
);
CREATE INDEX erasures_newest ON erasures (tenant_id, mode, requested_at DESC);

-- Down Migration
DROP TABLE erasures;
DELETE FROM graph_outbox WHERE kind = 'forget';
ALTER TABLE graph_outbox DROP CONSTRAINT graph_outbox_kind_check;
ALTER TABLE graph_outbox ADD CONSTRAINT graph_outbox_kind_check CHECK (kind IN ('link', 'mark'));
