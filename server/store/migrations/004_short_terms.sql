-- Substring terms of one to three characters: a kept count of live subscribers per gram, and an index of 2-grams.
--
-- A search box sends every prefix of what is typed: "j", "jo", "joh". Before this migration, a term under three
-- characters had no gram in the trigram indexes, so it was found by reading rows, and its capped count read rows until
-- 50,001 matched or the table ended. Measured on the bench data (930,931 live subscribers in one environment):
-- `email "an"` counted 50,001 of ~230,000 rows read (100 ms p50), `email "q"` read every row (195 ms), and the page of
-- `email "qz"`, which nobody's address holds, walked the whole table in page order looking for a row (2.5 s).
--
-- The count: subscriber_search_gram_counts keeps, per environment and searched column, how many live subscribers
-- contain each gram of one to three characters (statement-level triggers, like subscriber_counts). A row contains a
-- term of at most three characters exactly when the term is one of its grams, so for a search with only that filter
-- the kept count is the count itself, exact, and never read from the rows.
--
-- The page: subscribers_*_bigrams index each row's 2-grams, so that a two-character term few rows contain is read
-- through the index like a longer one (substring-filter.ts chooses, by the gram's share of rows). One-character
-- terms are not indexed: nearly every character is in a large share of the rows, where reading in page order finds a
-- page after a few hundred rows, and one posting list per letter would cost every PATCH ~15 entries per column.

CREATE FUNCTION substring_bigrams(value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(value, i, 2)), '{}') FROM generate_series(1, length(value) - 1) AS i
$$;

-- Every distinct gram of one, two and three characters of a value: what the counts below are kept for.
CREATE FUNCTION substring_short_grams(value text) RETURNS SETOF text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT DISTINCT substr(value, i, n) FROM generate_series(1, 3) AS n, generate_series(1, length(value) - n + 1) AS i
$$;

CREATE INDEX subscribers_email_bigrams ON subscribers USING gin (substring_bigrams(email_search))
  WITH (gin_pending_list_limit = 64) WHERE NOT deleted;
CREATE INDEX subscribers_phone_bigrams ON subscribers USING gin (substring_bigrams(phone_search))
  WITH (gin_pending_list_limit = 64) WHERE NOT deleted;
CREATE INDEX subscribers_name_bigrams ON subscribers USING gin (substring_bigrams(name_search))
  WITH (gin_pending_list_limit = 64) WHERE NOT deleted;

CREATE TABLE subscriber_search_gram_counts (
  environment_id char(24) NOT NULL REFERENCES environments (id),
  -- 'email', 'phone' or 'name': the filter whose lowercase copy (email_search, ...) holds the gram.
  searched text NOT NULL,
  gram text NOT NULL,
  live bigint NOT NULL,
  PRIMARY KEY (environment_id, searched, gram)
);

-- The grams of one row's searched columns, one row per column and gram.
-- Arguments: environment_id, email_search, phone_search, name_search.
CREATE FUNCTION subscriber_search_grams(char(24), text, text, text)
  RETURNS TABLE (environment_id char(24), searched text, gram text) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT $1, column_value.searched, gram
  FROM (VALUES ('email', $2), ('phone', $3), ('name', $4)) AS column_value (searched, value),
    substring_short_grams(column_value.value) AS gram
$$;

-- Statement-level: a bulk insert updates each gram once. An update counts only the rows whose searched columns or
-- `deleted` changed, so a PATCH of `data` writes nothing here, and a changed name writes only the grams it gained or
-- lost. The counts are written in key order, so that two transactions never take their row locks in opposite orders.
CREATE FUNCTION count_subscriber_search_grams() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO subscriber_search_gram_counts AS c (environment_id, searched, gram, live)
    SELECT g.environment_id, g.searched, g.gram, count(*)
    FROM new_rows r, subscriber_search_grams(r.environment_id, r.email_search, r.phone_search, r.name_search) g
    WHERE NOT r.deleted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (environment_id, searched, gram) DO UPDATE SET live = c.live + excluded.live;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE subscriber_search_gram_counts c SET live = c.live - gone.n
    FROM (SELECT g.environment_id, g.searched, g.gram, count(*) AS n
          FROM old_rows r, subscriber_search_grams(r.environment_id, r.email_search, r.phone_search, r.name_search) g
          WHERE NOT r.deleted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3) gone
    WHERE c.environment_id = gone.environment_id AND c.searched = gone.searched AND c.gram = gone.gram;
  ELSE
    INSERT INTO subscriber_search_gram_counts AS c (environment_id, searched, gram, live)
    SELECT g.environment_id, g.searched, g.gram, sum(changed.n)
    FROM (
      SELECT n.environment_id, n.email_search, n.phone_search, n.name_search, 1 AS n
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE NOT n.deleted AND (n.email_search, n.phone_search, n.name_search, n.deleted)
        IS DISTINCT FROM (o.email_search, o.phone_search, o.name_search, o.deleted)
      UNION ALL
      SELECT o.environment_id, o.email_search, o.phone_search, o.name_search, -1
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE NOT o.deleted AND (n.email_search, n.phone_search, n.name_search, n.deleted)
        IS DISTINCT FROM (o.email_search, o.phone_search, o.name_search, o.deleted)
    ) changed, subscriber_search_grams(changed.environment_id, changed.email_search, changed.phone_search,
      changed.name_search) g
    GROUP BY 1, 2, 3 HAVING sum(changed.n) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (environment_id, searched, gram) DO UPDATE SET live = c.live + excluded.live;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER subscribers_search_gram_counts_insert AFTER INSERT ON subscribers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_subscriber_search_grams();
CREATE TRIGGER subscribers_search_gram_counts_update AFTER UPDATE ON subscribers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_subscriber_search_grams();
CREATE TRIGGER subscribers_search_gram_counts_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_subscriber_search_grams();

INSERT INTO subscriber_search_gram_counts (environment_id, searched, gram, live)
SELECT g.environment_id, g.searched, g.gram, count(*)
FROM subscribers s, subscriber_search_grams(s.environment_id, s.email_search, s.phone_search, s.name_search) g
WHERE NOT s.deleted GROUP BY 1, 2, 3;

-- The substring filters choose between the indexes by the grams' shares of rows (pg_stats), which the new indexes
-- have only once analyzed.
ANALYZE subscribers;
