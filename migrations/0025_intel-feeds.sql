-- Up Migration
-- Public intelligence feeds fetched at run time (`doorman intel update`, src/intel/): one row per
-- source, holding the last good copy of its list normalized to one entry per line, and what the
-- last fetch found. A failed fetch records its error and keeps the body, so a bad answer never
-- empties a list. Not tenant data: the same for every tenant and mode. Every instance loads the
-- bodies into memory, and a changed body announces itself on commit on the channel the instances
-- reload on, whoever changed it.
CREATE TABLE intel_feeds (
  name text PRIMARY KEY,
  category text NOT NULL,
  url text NOT NULL,
  body text NOT NULL DEFAULT '',
  entries integer NOT NULL DEFAULT 0,
  sha256 text,
  -- The validators of the last good answer, sent back as If-None-Match / If-Modified-Since.
  etag text,
  last_modified text,
  -- When the body last changed; the last fetch that answered well (an unchanged 304 included);
  -- the last try; and the last failure with its message.
  changed_at timestamptz,
  last_success timestamptz,
  last_attempt timestamptz,
  last_error text,
  last_error_at timestamptz
);

CREATE FUNCTION doorman_announce_intel_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- One payload: notifications alike in one transaction are delivered once.
  PERFORM pg_notify('doorman_intel_reload', '');
  RETURN NULL;
END $$;

CREATE TRIGGER intel_feeds_announced AFTER INSERT OR DELETE ON intel_feeds
  FOR EACH ROW EXECUTE FUNCTION doorman_announce_intel_change();
CREATE TRIGGER intel_feeds_body_announced AFTER UPDATE ON intel_feeds
  FOR EACH ROW WHEN (OLD.body IS DISTINCT FROM NEW.body) EXECUTE FUNCTION doorman_announce_intel_change();

-- Down Migration
DROP TABLE intel_feeds;
DROP FUNCTION doorman_announce_intel_change();
