-- Up Migration
-- `doorman graph rebuild` empties a scope's graph through the outbox (kind 'delete_scope'), so the
-- lane's one writer applies it in order with the links and marks around it: no graph write
-- bypasses the writer (CONVENTIONS.md rule 13).
ALTER TABLE graph_outbox DROP CONSTRAINT graph_outbox_kind_check;
ALTER TABLE graph_outbox ADD CONSTRAINT graph_outbox_kind_check CHECK (kind IN ('link', 'mark', 'forget', 'delete_scope'));

-- Down Migration
DELETE FROM graph_outbox WHERE kind = 'delete_scope';
ALTER TABLE graph_outbox DROP CONSTRAINT graph_outbox_kind_check;
ALTER TABLE graph_outbox ADD CONSTRAINT graph_outbox_kind_check CHECK (kind IN ('link', 'mark', 'forget'));
