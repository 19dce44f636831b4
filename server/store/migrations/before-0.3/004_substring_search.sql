-- Substring filters (`email`, `phone`, `name` of the subscriber search, `search` of the notification list) at 1M rows.
-- pg_trgm splits an e-mail address into words and pads them, so most of its trigrams ("  g", "com", "gma") occur in
-- most rows, and a GIN scan reads every one of their posting lists: 30-40 ms for a term with one match. Instead:
--
-- 1. Lowercase copies of the searched values. In a UTF-8 database, `x ILIKE p` is `lower(x) LIKE lower(p)`
--    (PostgreSQL's Generic_Text_IC_like), so `email_search LIKE lower(p)` answers exactly as `email ILIKE p` did, and
--    costs a third as much per row: it does not lowercase every row it reads.
-- 2. Our own 3-grams of those copies, unpadded and across punctuation ("n.t", "l@g"), in GIN indexes. The store asks
--    for the two or three rarest grams of the term only (rarity from the index's own statistics, pg_stats), so the
--    scan reads a few short posting lists; the rows they name are then checked with LIKE. Which grams are asked for
--    never changes the answer: substring_grams_among() keeps only grams of the term itself.
-- 3. A term whose grams are all common matches many rows: the page then walks the sort index (the first matches come
--    soon) and the capped count walks subscribers_search_columns, an index of (environment, _id) that carries the
--    lowercase copies, so the count reads no table rows.
-- Empty (not NULL) for a value under 3 characters, so that `grams @> '{}'` still finds it.
CREATE FUNCTION substring_grams(value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(value, i, 3)), '{}') FROM generate_series(1, length(value) - 2) AS i
$$;

-- The grams of `term` that are among `preferred`, or all of them when none is ('{}' for a term under 3 characters,
-- which every row contains).
CREATE FUNCTION substring_grams_among(term text, preferred text[]) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT
  PARALLEL SAFE AS $$
  SELECT coalesce(
    (SELECT array_agg(gram) FROM unnest(substring_grams(term)) AS gram WHERE gram = ANY (preferred)),
    substring_grams(term))
$$;

DROP INDEX subscribers_email_trgm, subscribers_phone_trgm, subscribers_full_name_trgm;
ALTER TABLE subscribers
  DROP COLUMN full_name,
  ADD COLUMN email_search text GENERATED ALWAYS AS (lower(email)) STORED,
  ADD COLUMN phone_search text GENERATED ALWAYS AS (lower(phone)) STORED,
  -- What the `name` filter searches: first name, a space, last name.
  ADD COLUMN name_search text GENERATED ALWAYS AS (lower(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))) STORED;

CREATE INDEX subscribers_email_grams ON subscribers USING gin (substring_grams(email_search)) WHERE NOT deleted;
CREATE INDEX subscribers_phone_grams ON subscribers USING gin (substring_grams(phone_search)) WHERE NOT deleted;
CREATE INDEX subscribers_name_grams ON subscribers USING gin (substring_grams(name_search)) WHERE NOT deleted;

-- Replaces subscribers_order_id (same key): it also serves the `_id` order.
CREATE INDEX subscribers_search_columns ON subscribers (environment_id, id)
  INCLUDE (email_search, phone_search, name_search) WHERE NOT deleted;
DROP INDEX subscribers_order_id;
