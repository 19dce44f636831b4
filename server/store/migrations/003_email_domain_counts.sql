-- A kept count of live subscribers per e-mail domain, so that the capped count of an e-mail search for a common term
-- ("gmail", "@acme.com", ".com") is known without reading the rows it matches.
--
-- A row whose domain contains the term also contains it in its address, since the domain is a part of the address.
-- So the live subscribers of the domains that match the term are a lower bound of the search's count: when they
-- alone pass the total-count cap, the answer is the cap (`totalCountCapped`), exactly what counting the rows up to
-- the cap would say. When they do not, the store counts the rows as before. Measured on the bench data (1M
-- subscribers, three domains): `email=gmail` 63 ms p50 / 94 p99 at store level, since counting to 50,001 matches read
-- some 160,000 rows; the domains answer in 0.04 ms.
--
-- The domain is what follows the last '@' of the lowercase copy (the whole address when it has none: still a part of
-- it). Only domains with at least 1,000 live subscribers are read, through a partial index, so that an environment
-- with a long tail of small domains still answers from a few rows; the tail still counts, by the rows.

CREATE FUNCTION email_domain(email_search text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT split_part(email_search, '@', -1)
$$;

CREATE TABLE subscriber_email_domains (
  environment_id char(24) NOT NULL REFERENCES environments (id),
  domain text NOT NULL,
  live bigint NOT NULL,
  PRIMARY KEY (environment_id, domain)
);
CREATE INDEX subscriber_email_domains_large ON subscriber_email_domains (environment_id)
  INCLUDE (domain, live) WHERE live >= 1000;

-- Statement-level, like count_live_subscribers: a bulk insert updates each domain once. An update that changes
-- neither an address nor `deleted` (a PATCH of `data`) nets to nothing and writes nothing.
CREATE FUNCTION count_email_domains() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO subscriber_email_domains AS c (environment_id, domain, live)
    SELECT environment_id, email_domain(email_search), count(*) FROM new_rows
    WHERE NOT deleted AND email_search IS NOT NULL GROUP BY 1, 2
    ON CONFLICT (environment_id, domain) DO UPDATE SET live = c.live + excluded.live;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE subscriber_email_domains c SET live = c.live - gone.n
    FROM (SELECT environment_id, email_domain(email_search) AS domain, count(*) AS n FROM old_rows
          WHERE NOT deleted AND email_search IS NOT NULL GROUP BY 1, 2) gone
    WHERE c.environment_id = gone.environment_id AND c.domain = gone.domain;
  ELSE
    INSERT INTO subscriber_email_domains AS c (environment_id, domain, live)
    SELECT environment_id, domain, sum(n) FROM (
      SELECT environment_id, email_domain(email_search) AS domain, 1 AS n FROM new_rows
      WHERE NOT deleted AND email_search IS NOT NULL
      UNION ALL
      SELECT environment_id, email_domain(email_search), -1 FROM old_rows WHERE NOT deleted AND email_search IS NOT NULL
    ) changes GROUP BY 1, 2 HAVING sum(n) <> 0
    ON CONFLICT (environment_id, domain) DO UPDATE SET live = c.live + excluded.live;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER subscribers_email_domains_insert AFTER INSERT ON subscribers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_email_domains();
CREATE TRIGGER subscribers_email_domains_update AFTER UPDATE ON subscribers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_email_domains();
CREATE TRIGGER subscribers_email_domains_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_email_domains();

INSERT INTO subscriber_email_domains (environment_id, domain, live)
SELECT environment_id, email_domain(email_search), count(*) FROM subscribers
WHERE NOT deleted AND email_search IS NOT NULL GROUP BY 1, 2;
