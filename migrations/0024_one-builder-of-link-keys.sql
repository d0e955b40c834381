-- Up Migration
-- The keys a waiting link joins through (graph_outbox.keys, which the verdict's check of waiting
-- links compares) are built in one place, in TS (src/graph/identity-graph.ts linkKeys), in one
-- form that cannot be mistaken (an identity key named `account` never passes for an account, nor
-- a kind holding ':' for another kind): an account 'a:<external id>', an identifier
-- 'i:<characters in its kind>:<kind>:<value>'. The links waiting at the upgrade get their keys in
-- that form here, once; nothing else builds them in SQL.
UPDATE graph_outbox o SET keys = ARRAY(
    SELECT 'a:' || (o.payload->>'account') WHERE o.payload->>'account' IS NOT NULL
    UNION ALL
    SELECT 'i:' || length(x->>'kind') || ':' || (x->>'kind') || ':' || (x->>'value')
      FROM jsonb_array_elements(o.payload->'ids') x WHERE coalesce((x->>'links')::boolean, true))
 WHERE kind = 'link';
UPDATE graph_applied_links k SET keys = ARRAY(
    SELECT 'a:' || k.account WHERE k.account IS NOT NULL
    UNION ALL
    SELECT 'i:' || length(x->>'kind') || ':' || (x->>'kind') || ':' || (x->>'value')
      FROM jsonb_array_elements(k.ids) x WHERE coalesce((x->>'links')::boolean, true));

-- Down Migration
UPDATE graph_outbox o SET keys = ARRAY(
    SELECT 'account:' || (o.payload->>'account') WHERE o.payload->>'account' IS NOT NULL
    UNION ALL
    SELECT (x->>'kind') || ':' || (x->>'value')
      FROM jsonb_array_elements(o.payload->'ids') x WHERE coalesce((x->>'links')::boolean, true))
 WHERE kind = 'link';
UPDATE graph_applied_links k SET keys = ARRAY(
    SELECT 'account:' || k.account WHERE k.account IS NOT NULL
    UNION ALL
    SELECT (x->>'kind') || ':' || (x->>'value')
      FROM jsonb_array_elements(k.ids) x WHERE coalesce((x->>'links')::boolean, true));
