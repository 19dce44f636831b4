-- The distinct grams of one to three characters of a value (migration 004), found without a DISTINCT: a gram is kept
-- at its first place in the value (`strpos` finds it there), so each distinct gram comes once, as before. The
-- DISTINCT built a hash table for every value (three per subscriber); STRICT kept the function from being inlined into
-- the statement that calls it. Without STRICT a null value still has no grams: `generate_series` up to a null length
-- yields no row.
--
-- Measured (D52): the recount's statement on the million bench subscribers, 64.3 s before and 38.1 s after; on Citus
-- (200,000) 12.7 and 8.1 s; on PGlite (50,000, the whole recount) 19.3 and 16.1 s; the counts equal. A bulk load
-- recounts the grams of every subscriber (kept-counts.ts); the count triggers call the function for every subscriber
-- written and every PATCH that changes a searched column (name PATCHes 1.11x on PostgreSQL, 1.16x on PGlite).
CREATE OR REPLACE FUNCTION substring_short_grams(value text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT substr(value, i, n) FROM generate_series(1, 3) AS n, generate_series(1, length(value) - n + 1) AS i
  WHERE strpos(value, substr(value, i, n)) = i
$$;
