-- Up Migration
-- API keys and list entries are answered from each instance's memory. Every change to
-- either table, whoever makes it (the CLI, a migration, an operator in psql), is announced on
-- commit, so each instance drops what changed (src/tenants/key-directory.ts,
-- src/lists/list-directory.ts). A TRUNCATE announces a full reload.

CREATE FUNCTION doorman_announce_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('doorman_keys_changed', '*');
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('doorman_keys_changed', OLD.key_hash);
  ELSE
    PERFORM pg_notify('doorman_keys_changed', NEW.key_hash);
    IF TG_OP = 'UPDATE' AND OLD.key_hash <> NEW.key_hash THEN
      PERFORM pg_notify('doorman_keys_changed', OLD.key_hash);
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_announced AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION doorman_announce_key_change();
CREATE TRIGGER api_keys_truncate_announced AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION doorman_announce_key_change();

-- A list change names its entry ({"op":"add"|"remove", tenant_id, mode, list, kind, value}), so an
-- instance applies it without a read; a value too long for a notification's 8,000 bytes asks for
-- the scope to be reloaded instead ({"op":"reload", tenant_id, mode}); '*' reloads everything.
CREATE FUNCTION doorman_list_change(op text, e list_entries) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN octet_length(e.value) > 6000
    THEN json_build_object('op', 'reload', 'tenant_id', e.tenant_id, 'mode', e.mode)::text
    ELSE json_build_object('op', op, 'tenant_id', e.tenant_id, 'mode', e.mode, 'list', e.list, 'kind', e.kind, 'value', e.value)::text
  END
$$;

CREATE FUNCTION doorman_announce_list_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('doorman_lists_changed', '*');
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM pg_notify('doorman_lists_changed', doorman_list_change('remove', OLD));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM pg_notify('doorman_lists_changed', doorman_list_change('add', NEW));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER list_entries_announced AFTER INSERT OR UPDATE OR DELETE ON list_entries
  FOR EACH ROW EXECUTE FUNCTION doorman_announce_list_change();
CREATE TRIGGER list_entries_truncate_announced AFTER TRUNCATE ON list_entries
  FOR EACH STATEMENT EXECUTE FUNCTION doorman_announce_list_change();

-- Down Migration
DROP TRIGGER list_entries_truncate_announced ON list_entries;
DROP TRIGGER list_entries_announced ON list_entries;
DROP FUNCTION doorman_announce_list_change();
DROP FUNCTION doorman_list_change(text, list_entries);
DROP TRIGGER api_keys_truncate_announced ON api_keys;
DROP TRIGGER api_keys_announced ON api_keys;
DROP FUNCTION doorman_announce_key_change();
