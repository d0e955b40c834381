-- Up Migration
-- Outcomes reported by callers (contract §2.6, §4.5). One row per (subject, outcome): an
-- identical repost is stored once; the same subject with another outcome is a second row.
-- applied_at is set once the outcome has been written to the subject's cluster in the graph,
-- so a repost after a failed apply applies it then, and never twice.
CREATE TABLE feedback (
  tenant_id      text NOT NULL REFERENCES tenants (id),
  mode           text NOT NULL CHECK (mode IN ('live', 'test')),
  subject_kind   text NOT NULL CHECK (subject_kind IN ('event_id', 'external_user_id', 'email')),
  subject_value  text NOT NULL,
  outcome        text NOT NULL CHECK (outcome IN ('confirmed_abuse', 'false_positive', 'chargeback')),
  note           text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  applied_at     timestamptz,
  PRIMARY KEY (tenant_id, mode, subject_kind, subject_value, outcome)
);

-- Down Migration
DROP TABLE feedback;
