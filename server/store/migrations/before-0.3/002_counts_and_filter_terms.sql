-- Found by `npm run bench` at 1M rows (bench/RESULTS.md):
-- 1. Counting up to the 50,000 cap for an unfiltered subscriber search walked 50,000 index entries (~15 ms) on every
--    page. A per-environment count of live subscribers, kept by statement-level triggers, answers it at once.
-- 2. A rare notification filter (a topic key or a channel and severity pair with few or no matches) was planned as a
--    walk down the newest-first index, because the planner estimates such values as common enough: with no match it
--    read the whole environment (seconds). Each notification now carries its filter terms (c:<channel>,
--    cs:<channel>:<severity>, t:<topic key>) in one GIN-indexed column, and a per-environment count of every term
--    tells the store when a filter is rare enough to collect its matches from that index and sort them instead.

CREATE TABLE subscriber_counts (
  environment_id char(24) PRIMARY KEY REFERENCES environments (id),
  live bigint NOT NULL
);

CREATE FUNCTION count_live_subscribers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO subscriber_counts AS c (environment_id, live)
    SELECT environment_id, count(*) FROM new_rows WHERE NOT deleted GROUP BY environment_id
    ON CONFLICT (environment_id) DO UPDATE SET live = c.live + excluded.live;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE subscriber_counts c SET live = c.live - gone.n
    FROM (SELECT environment_id, count(*) AS n FROM old_rows WHERE NOT deleted GROUP BY environment_id) gone
    WHERE c.environment_id = gone.environment_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER subscribers_count_insert AFTER INSERT ON subscribers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_subscribers();
CREATE TRIGGER subscribers_count_update AFTER UPDATE ON subscribers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_subscribers();
CREATE TRIGGER subscribers_count_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_subscribers();

INSERT INTO subscriber_counts (environment_id, live)
SELECT id, (SELECT count(*) FROM subscribers s WHERE s.environment_id = e.id AND NOT s.deleted) FROM environments e;

-- A notification's filter terms. Severity "none" and no severity are one term, as the `severity=none` filter reads.
CREATE FUNCTION notification_filter_terms(channels text[], severity text, topic_keys text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT term), '{}') FROM (
    SELECT 'c:' || c AS term FROM unnest(channels) AS c
    UNION ALL SELECT 'cs:' || c || ':' || coalesce(severity, 'none') FROM unnest(channels) AS c
    UNION ALL SELECT 't:' || t FROM unnest(topic_keys) AS t
  ) AS terms
$$;

ALTER TABLE notifications
  ADD COLUMN filter_terms text[] GENERATED ALWAYS AS (notification_filter_terms(channels, severity, topic_keys)) STORED;
CREATE INDEX notifications_filter_terms ON notifications USING gin (filter_terms);
DROP INDEX notifications_channels;
DROP INDEX notifications_topic_keys;

CREATE TABLE notification_term_counts (
  environment_id char(24) NOT NULL REFERENCES environments (id),
  term text NOT NULL,
  -- Notifications that carry the term, at any time: an upper bound for any date range.
  notifications bigint NOT NULL,
  PRIMARY KEY (environment_id, term)
);

CREATE FUNCTION count_notification_terms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO notification_term_counts AS c (environment_id, term, notifications)
    SELECT environment_id, term, count(*) FROM new_rows, unnest(filter_terms) AS term GROUP BY environment_id, term
    ON CONFLICT (environment_id, term) DO UPDATE SET notifications = c.notifications + excluded.notifications;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE notification_term_counts c SET notifications = c.notifications - gone.n
    FROM (SELECT environment_id, term, count(*) AS n FROM old_rows, unnest(filter_terms) AS term
          GROUP BY environment_id, term) gone
    WHERE c.environment_id = gone.environment_id AND c.term = gone.term;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER notifications_terms_insert AFTER INSERT ON notifications
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_notification_terms();
CREATE TRIGGER notifications_terms_update AFTER UPDATE ON notifications
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_notification_terms();
CREATE TRIGGER notifications_terms_delete AFTER DELETE ON notifications
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_notification_terms();

INSERT INTO notification_term_counts (environment_id, term, notifications)
SELECT environment_id, term, count(*) FROM notifications, unnest(filter_terms) AS term GROUP BY environment_id, term;
