-- The schema, whole. PostgreSQL dialect; runs unchanged on PGlite and on a PostgreSQL 15+ server. Later changes come
-- as new numbered files beside this one, each additive. (Databases made before 0.3.0, whose history is the five
-- files in before-0.3/, are brought to this same schema by those files; server/store/migrate.ts.)
--
-- Why the less obvious parts are there, found by `npm run bench` at 1M subscribers and 1M notifications
-- (bench/RESULTS.md, docs/decisions.md):
-- - subscriber_counts: counting up to the total-count cap for an unfiltered search walked 50,000 index entries on
--   every page; a per-environment count kept by statement-level triggers answers at once.
-- - notifications.filter_terms and notification_term_counts: the planner estimated rare channel/severity/topic
--   filters as common and walked the newest-first index through a whole environment; each notification carries its
--   filter terms in one GIN-indexed column, and a per-environment count of every term tells the store when a filter
--   is rare enough to collect its matches first.
-- - notifications partitioned by month of created_at: retention drops a whole month at once, and the newest-first
--   walk reads the newest month first.
-- - Substring search on lowercase copies with our own 3-gram GIN indexes instead of pg_trgm (server/store/
--   substring-filter.ts): pg_trgm's padded word trigrams of an e-mail address are in most rows.

CREATE TABLE organizations (
  id char(24) PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE environments (
  id char(24) PRIMARY KEY,
  organization_id char(24) NOT NULL REFERENCES organizations (id),
  name text NOT NULL UNIQUE,
  -- Days of notification history the environment may read; NULL means unlimited.
  retention_days integer CHECK (retention_days > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 hash of a key is stored; the key itself is shown once, when it is created.
CREATE TABLE api_keys (
  key_hash char(64) PRIMARY KEY,
  environment_id char(24) NOT NULL REFERENCES environments (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_environment ON api_keys (environment_id);

-- Subscribers ---------------------------------------------------------------------------------------------------

-- The 3-grams of a value, unpadded and across punctuation ("n.t", "l@g"). Empty (not NULL) for a value under 3
-- characters, so that `grams @> '{}'` still finds it.
CREATE FUNCTION substring_grams(value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(value, i, 3)), '{}') FROM generate_series(1, length(value) - 2) AS i
$$;

-- The grams of `term` that are among `preferred` (the rarest, chosen by the store), or all of them when none is
-- ('{}' for a term under 3 characters, which every row contains). Which grams are asked for never changes an answer:
-- only grams of the term itself are kept, and the rows they name are checked with LIKE.
CREATE FUNCTION substring_grams_among(term text, preferred text[]) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT
  PARALLEL SAFE AS $$
  SELECT coalesce(
    (SELECT array_agg(gram) FROM unnest(substring_grams(term)) AS gram WHERE gram = ANY (preferred)),
    substring_grams(term))
$$;

CREATE TABLE subscribers (
  id char(24) PRIMARY KEY,
  environment_id char(24) NOT NULL REFERENCES environments (id),
  organization_id char(24) NOT NULL REFERENCES organizations (id),
  subscriber_id text NOT NULL,
  first_name text,
  last_name text,
  email text,
  phone text,
  avatar text,
  locale text,
  timezone text,
  channels jsonb NOT NULL DEFAULT '[]',
  topics text[] NOT NULL DEFAULT '{}',
  is_online boolean,
  last_online_at timestamptz,
  version integer NOT NULL DEFAULT 0,
  data jsonb,
  deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Lowercase copies that the substring filters search. In a UTF-8 database `x ILIKE p` is `lower(x) LIKE lower(p)`,
  -- so `email_search LIKE lower(p)` answers exactly as `email ILIKE p` would, without lowercasing every row it reads.
  email_search text GENERATED ALWAYS AS (lower(email)) STORED,
  phone_search text GENERATED ALWAYS AS (lower(phone)) STORED,
  -- What the `name` filter searches: first name, a space, last name.
  name_search text GENERATED ALWAYS AS (lower(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))) STORED
);
CREATE UNIQUE INDEX subscribers_subscriber_id ON subscribers (environment_id, subscriber_id) WHERE NOT deleted;
-- Keyset pagination, one index per sort key with the _id tiebreak. The `_id` one also carries the lowercase copies,
-- so that the capped count of a common substring term reads no table rows.
CREATE INDEX subscribers_search_columns ON subscribers (environment_id, id)
  INCLUDE (email_search, phone_search, name_search) WHERE NOT deleted;
CREATE INDEX subscribers_order_created ON subscribers (environment_id, created_at, id) WHERE NOT deleted;
CREATE INDEX subscribers_order_updated ON subscribers (environment_id, updated_at, id) WHERE NOT deleted;
-- Exact email lookups (the notification list's `emails` filter).
CREATE INDEX subscribers_email ON subscribers (environment_id, email) WHERE NOT deleted;
CREATE INDEX subscribers_email_grams ON subscribers USING gin (substring_grams(email_search)) WHERE NOT deleted;
CREATE INDEX subscribers_phone_grams ON subscribers USING gin (substring_grams(phone_search)) WHERE NOT deleted;
CREATE INDEX subscribers_name_grams ON subscribers USING gin (substring_grams(name_search)) WHERE NOT deleted;

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

-- Workflows -----------------------------------------------------------------------------------------------------

CREATE TABLE workflows (
  id char(24) PRIMARY KEY,
  environment_id char(24) NOT NULL REFERENCES environments (id),
  name text NOT NULL,
  origin text,
  triggers jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX workflows_environment ON workflows (environment_id);

-- Notifications -------------------------------------------------------------------------------------------------

-- A notification's filter terms: c:<channel>, cs:<channel>:<severity>, t:<topic key>. Severity "none" and no
-- severity are one term, as the `severity=none` filter reads.
CREATE FUNCTION notification_filter_terms(channels text[], severity text, topic_keys text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT term), '{}') FROM (
    SELECT 'c:' || c AS term FROM unnest(channels) AS c
    UNION ALL SELECT 'cs:' || c || ':' || coalesce(severity, 'none') FROM unnest(channels) AS c
    UNION ALL SELECT 't:' || t FROM unnest(topic_keys) AS t
  ) AS terms
$$;

CREATE TABLE notifications (
  id char(24) NOT NULL,
  environment_id char(24) NOT NULL REFERENCES environments (id),
  organization_id char(24) NOT NULL REFERENCES organizations (id),
  subscriber_id char(24) NOT NULL REFERENCES subscribers (id),
  transaction_id text NOT NULL,
  template_id char(24) REFERENCES workflows (id),
  digested_notification_id char(24),
  channels text[] NOT NULL DEFAULT '{}',
  severity text,
  topic_keys text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Everything no filter reads: jobs (with execution details and steps), payload, tags, controls, to, topics,
  -- critical, contextKeys. It is read and written whole.
  details jsonb NOT NULL,
  filter_terms text[] GENERATED ALWAYS AS (notification_filter_terms(channels, severity, topic_keys)) STORED,
  -- A partitioned table's primary key must hold the partition key. Ids stay unique: they are ObjectIds.
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);
CREATE INDEX notifications_order ON notifications (environment_id, created_at DESC, id DESC);
CREATE INDEX notifications_subscriber ON notifications (environment_id, subscriber_id, created_at DESC, id DESC);
CREATE INDEX notifications_template ON notifications (environment_id, template_id, created_at DESC, id DESC);
CREATE INDEX notifications_severity ON notifications (environment_id, severity, created_at DESC, id DESC);
CREATE INDEX notifications_transaction ON notifications (environment_id, transaction_id);
CREATE INDEX notifications_filter_terms ON notifications USING gin (filter_terms);

-- Monthly partitions, made ahead: the server calls this at start and every ten minutes for the current month and
-- the next three; whoever writes older or later rows calls it for their range. Returns how many it created.
CREATE FUNCTION ensure_notification_partitions(from_time timestamptz, to_time timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  month timestamptz := date_trunc('month', from_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  created integer := 0;
  name text;
BEGIN
  WHILE month <= to_time LOOP
    name := 'notifications_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
    IF to_regclass(name) IS NULL THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF notifications FOR VALUES FROM (%L) TO (%L)', name, month,
        (month AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC');
      created := created + 1;
    END IF;
    month := (month AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC';
  END LOOP;
  RETURN created;
END $$;

-- Drops the monthly partitions whose months end on or before `before` (retention); returns their names. Their rows
-- leave notification_term_counts first: dropping a table fires no delete trigger.
CREATE FUNCTION drop_notification_partitions(before timestamptz) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  partition record;
BEGIN
  FOR partition IN
    SELECT c.relname AS name,
      (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz AS upper_bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'notifications'::regclass
    ORDER BY 2
  LOOP
    CONTINUE WHEN partition.upper_bound > before;
    EXECUTE format(
      'UPDATE notification_term_counts c SET notifications = c.notifications - gone.n
       FROM (SELECT environment_id, term, count(*) AS n FROM %I, unnest(filter_terms) AS term
             GROUP BY environment_id, term) gone
       WHERE c.environment_id = gone.environment_id AND c.term = gone.term', partition.name);
    EXECUTE format('DROP TABLE %I', partition.name);
    RETURN NEXT partition.name;
  END LOOP;
END $$;

SELECT ensure_notification_partitions(now(), now() + interval '3 months');

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

-- Requests ------------------------------------------------------------------------------------------------------

-- Stored answers to PATCH requests that carried an idempotency-key header.
CREATE TABLE idempotency_records (
  environment_id char(24) NOT NULL REFERENCES environments (id),
  idempotency_key text NOT NULL,
  fingerprint char(64) NOT NULL,
  status_code integer NOT NULL,
  -- The exact JSON text that was sent, so that a replay is byte-for-byte the same answer.
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (environment_id, idempotency_key)
);
CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);

-- One token bucket per API key, shared by every API instance on this database (RATE_LIMIT_STORE=database): each
-- request takes its token in one atomic statement (server/store/rate-limits.ts). UNLOGGED: a bucket is worth nothing
-- after a crash (it refills within a minute anyway), and skipping the WAL keeps this write off the disk.
CREATE UNLOGGED TABLE rate_limit_buckets (
  key_hash text PRIMARY KEY,
  -- Tokens left after the last request, fractional: the refill is continuous.
  tokens double precision NOT NULL,
  -- Whether the last request got a token.
  allowed boolean NOT NULL,
  updated_at timestamptz NOT NULL
);
