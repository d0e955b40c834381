-- Up Migration
-- Marks can be taken back, clusters can be recomputed, and a verdict sees the links
-- still waiting in the outbox.
--
-- Every feedback row gets an id (`doorman feedback list|retract`), and a retraction: when, why,
-- by whom. A retracted outcome reported again is reinstated (recorded anew).
ALTER TABLE feedback ADD COLUMN id text;
UPDATE feedback SET id = 'fbk_' || replace(gen_random_uuid()::text, '-', '') WHERE id IS NULL;
ALTER TABLE feedback ALTER COLUMN id SET NOT NULL;
ALTER TABLE feedback ALTER COLUMN id SET DEFAULT 'fbk_' || replace(gen_random_uuid()::text, '-', '');
ALTER TABLE feedback ADD CONSTRAINT feedback_id_key UNIQUE (id);
ALTER TABLE feedback ADD COLUMN retracted_at timestamptz;
ALTER TABLE feedback ADD COLUMN retracted_by text;
ALTER TABLE feedback ADD COLUMN retract_note text;
CREATE INDEX feedback_scope_created ON feedback (tenant_id, mode, created_at DESC);

-- A retraction and a recomputation of a scope's clusters go through the lane's one writer too.
ALTER TABLE graph_outbox DROP CONSTRAINT graph_outbox_kind_check;
ALTER TABLE graph_outbox ADD CONSTRAINT graph_outbox_kind_check CHECK (kind IN ('link', 'mark', 'forget', 'delete_scope', 'retract', 'recluster'));

-- What a pending link joins (its account and identifiers as 'account:<id>' and '<kind>:<value>'),
-- so a verdict folds the links not yet applied into its read of the graph (docs/graph.md,
-- "Fresh reads"). Found through the lane's index (the newest pending rows of the scope's lane),
-- not an index of its own: a GIN index on rows that live for milliseconds would cost every verdict's
-- write and, through its pending list, every search.
ALTER TABLE graph_outbox ADD COLUMN keys text[];

-- Operators act from the CLI (a retraction): the audit log records them without an analyst.
ALTER TABLE console_audit ALTER COLUMN analyst_id DROP NOT NULL;

-- Down Migration
DELETE FROM console_audit WHERE analyst_id IS NULL;
ALTER TABLE console_audit ALTER COLUMN analyst_id SET NOT NULL;
ALTER TABLE graph_outbox DROP COLUMN keys;
DELETE FROM graph_outbox WHERE kind IN ('retract', 'recluster');
ALTER TABLE graph_outbox DROP CONSTRAINT graph_outbox_kind_check;
ALTER TABLE graph_outbox ADD CONSTRAINT graph_outbox_kind_check CHECK (kind IN ('link', 'mark', 'forget', 'delete_scope'));
DROP INDEX feedback_scope_created;
ALTER TABLE feedback DROP COLUMN retract_note;
ALTER TABLE feedback DROP COLUMN retracted_by;
ALTER TABLE feedback DROP COLUMN retracted_at;
ALTER TABLE feedback DROP CONSTRAINT feedback_id_key;
ALTER TABLE feedback DROP COLUMN id;
