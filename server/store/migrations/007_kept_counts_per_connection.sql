-- The kept counts a PATCH moves, without a row two connections share (#45): the gram counts (a name, an e-mail or a
-- phone changed) and the e-mail domain counts (an address moved to another domain). Each connection writes its changes
-- to rows of its own, and a count is the sum of its rows.
--
-- Before: a PATCH that changed a name, an e-mail or a phone added and took away about 24 gram counts
-- (subscriber_search_gram_counts, migration 004), one row per environment, column and gram, and held their row locks
-- until it committed. Grams are shared by most rows ("an", "e", " "), so concurrent PATCHes of names queued behind
-- each other: on PostgreSQL with 16 connections, 302 of 350 sampled backends were waiting for a row lock, and name
-- PATCHes stalled at 356-456 a second (issue #45).
--
-- Now: a count's rows are split by `slot`, the writing connection's backend process id modulo 64, so that two
-- connections share a row only when their ids meet modulo 64, and a connection never waits for another to commit
-- unless they do. Readers sum the rows of a gram (they summed already). A count has at most 64 rows; a recount (a
-- bulk load, and this migration) writes the recounting connection's slot alone. PGlite has one connection: its counts
-- stay one row per gram, as before.
--
-- PARALLEL RESTRICTED: in a parallel plan (the recount's), the leader's process id, not each worker's.
CREATE FUNCTION kept_count_slot() RETURNS smallint LANGUAGE sql STABLE PARALLEL RESTRICTED AS $$
  SELECT (pg_backend_pid() % 64)::smallint
$$;

ALTER TABLE subscriber_search_gram_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0;
UPDATE subscriber_search_gram_counts SET slot = kept_count_slot();
ALTER TABLE subscriber_search_gram_counts DROP CONSTRAINT subscriber_search_gram_counts_pkey;
ALTER TABLE subscriber_search_gram_counts ADD PRIMARY KEY (environment_id, searched, gram, slot);

-- A domain's count is the sum of its rows too. The partial index of migration 003 now finds the domains that have a
-- row of 1,000 or more (a bulk load's recount writes each domain's whole count in one row); the store then sums every
-- row of those (subscriber-search.ts). A domain grown to 1,000 by PATCHes from many connections may have no such row:
-- its rows are counted, as a small domain's are.
ALTER TABLE subscriber_email_domains ADD COLUMN slot smallint NOT NULL DEFAULT 0;
UPDATE subscriber_email_domains SET slot = kept_count_slot();
ALTER TABLE subscriber_email_domains DROP CONSTRAINT subscriber_email_domains_pkey;
ALTER TABLE subscriber_email_domains ADD PRIMARY KEY (environment_id, domain, slot);

-- As migration 006's, but for the domain and gram counts, which go to this connection's slot.
CREATE OR REPLACE FUNCTION count_subscriber_changes(changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriber_counts AS c (environment_id, live)
  SELECT environment_id, sum(n) FROM jsonb_to_recordset(changes) AS r(environment_id char(24), n integer)
  GROUP BY environment_id HAVING sum(n) <> 0 ORDER BY environment_id
  ON CONFLICT (environment_id) DO UPDATE SET live = c.live + excluded.live;

  INSERT INTO subscriber_email_domains AS c (environment_id, domain, slot, live)
  SELECT environment_id, email_domain(email_search), kept_count_slot(), sum(n)
  FROM jsonb_to_recordset(changes) AS r(environment_id char(24), email_search text, n integer)
  WHERE email_search IS NOT NULL GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
  ON CONFLICT (environment_id, domain, slot) DO UPDATE SET live = c.live + excluded.live;

  INSERT INTO subscriber_search_gram_counts AS c (environment_id, searched, gram, slot, live)
  SELECT g.environment_id, g.searched, g.gram, kept_count_slot(), sum(r.n)
  FROM jsonb_to_recordset(changes)
      AS r(environment_id char(24), email_search text, phone_search text, name_search text, n integer),
    subscriber_search_grams(r.environment_id, r.email_search, r.phone_search, r.name_search) g
  GROUP BY 1, 2, 3 HAVING sum(r.n) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (environment_id, searched, gram, slot) DO UPDATE SET live = c.live + excluded.live;
END $$;
