-- Up Migration
-- The analyst console: analyst accounts per tenant, their one-time sign-in links,
-- their sessions, and the audit log of what they did.

-- One account per email address on this Doorman (the sign-in form asks for no tenant), each in
-- one tenant. `mode` is the live/test switch, remembered per account; new accounts start in test.
-- password_hash is an argon2id PHC string, NULL until the sign-in link has been used.
CREATE TABLE analysts (
  id             text PRIMARY KEY,
  tenant_id      text NOT NULL REFERENCES tenants (id),
  email          text NOT NULL,
  role           text NOT NULL CHECK (role IN ('analyst', 'admin')),
  mode           text NOT NULL DEFAULT 'test' CHECK (mode IN ('live', 'test')),
  password_hash  text,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX analysts_email ON analysts (lower(email));
CREATE INDEX analysts_tenant ON analysts (tenant_id, created_at);

-- One-time sign-in links: only a SHA-256 of the token is stored; used_at makes it one-time.
CREATE TABLE analyst_sign_in_links (
  token_hash  text PRIMARY KEY,
  analyst_id  text NOT NULL REFERENCES analysts (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX analyst_sign_in_links_analyst ON analyst_sign_in_links (analyst_id);

-- Sessions: only a SHA-256 of the cookie's token is stored. A session ends at sign-out, after
-- idle time (last_seen_at) or at expires_at, whichever comes first; removing the analyst ends it.
CREATE TABLE analyst_sessions (
  token_hash    text PRIMARY KEY,
  analyst_id    text NOT NULL REFERENCES analysts (id) ON DELETE CASCADE,
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX analyst_sessions_analyst ON analyst_sessions (analyst_id);

-- What analysts did, newest first per tenant. The analyst's email is copied, so the log stays
-- readable after the account is removed (no foreign key on purpose).
CREATE TABLE console_audit (
  id             text PRIMARY KEY,
  tenant_id      text NOT NULL REFERENCES tenants (id),
  mode           text NOT NULL CHECK (mode IN ('live', 'test')),
  analyst_id     text NOT NULL,
  analyst_email  text NOT NULL,
  action         text NOT NULL,
  subject        text,
  detail         jsonb NOT NULL DEFAULT '{}',
  at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_audit_newest ON console_audit (tenant_id, at DESC, id DESC);

-- The overview's failed deliveries and the events search by time need nothing new: the indexes
-- of 0003 and 0007 serve them.

-- Down Migration
DROP TABLE console_audit;
DROP TABLE analyst_sessions;
DROP TABLE analyst_sign_in_links;
DROP TABLE analysts;
