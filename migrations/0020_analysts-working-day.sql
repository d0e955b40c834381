-- Up Migration
-- The analyst's working day in the console.
--
-- Undo of a resolution's marks: the review stays resolved (its webhook was sent); its graph mark
-- (key review:<event id>) is retracted through the outbox like a feedback retraction, and the
-- review records who took it back, when and why.
ALTER TABLE reviews ADD COLUMN marks_retracted_at timestamptz;
ALTER TABLE reviews ADD COLUMN marks_retracted_by text;
ALTER TABLE reviews ADD COLUMN marks_retract_note text;

-- Events search: prefix and domain of an email, the ip, the card and identity values, and a
-- reason code, each a bounded index scan within the tenant and mode.
CREATE INDEX events_by_email_prefix ON events (tenant_id, mode, lower(email) text_pattern_ops) WHERE email IS NOT NULL;
CREATE INDEX events_by_email_domain ON events (tenant_id, mode, lower(split_part(email, '@', 2)), created_at DESC) WHERE email IS NOT NULL;
CREATE INDEX events_by_ip ON events (tenant_id, mode, (request->>'ip'), created_at DESC) WHERE request ? 'ip';
CREATE INDEX events_by_card ON events (tenant_id, mode, (request->'payment'->>'card_fingerprint'), created_at DESC) WHERE request ? 'payment';
CREATE INDEX events_by_identity ON events USING gin ((request->'identity') jsonb_path_ops);
CREATE INDEX events_by_reason ON events USING gin (reasons jsonb_path_ops);

-- The overview's "what changed?": reviews opened and resolved, and feedback, by time.
CREATE INDEX reviews_by_created ON reviews (tenant_id, mode, created_at);
CREATE INDEX reviews_by_resolved ON reviews (tenant_id, mode, resolved_at) WHERE resolved_at IS NOT NULL;
CREATE INDEX feedback_by_created ON feedback (tenant_id, mode, created_at);

-- Down Migration
DROP INDEX feedback_by_created;
DROP INDEX reviews_by_resolved;
DROP INDEX reviews_by_created;
DROP INDEX events_by_reason;
DROP INDEX events_by_identity;
DROP INDEX events_by_card;
DROP INDEX events_by_ip;
DROP INDEX events_by_email_domain;
DROP INDEX events_by_email_prefix;
ALTER TABLE reviews DROP COLUMN marks_retract_note;
ALTER TABLE reviews DROP COLUMN marks_retracted_by;
ALTER TABLE reviews DROP COLUMN marks_retracted_at;
