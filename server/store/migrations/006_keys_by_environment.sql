-- Every table of an environment's data is keyed by its environment, and the kept counts are counted by one function
-- per table that statement triggers (here) and row triggers (on Citus) both call: what Citus (distributed PostgreSQL,
-- which shards these tables by environment_id: server/store/citus/) needs, with the same schema on plain PostgreSQL
-- and PGlite (docs/decisions.md, D41).
--
-- Keys. Citus routes a statement to one shard when every table it reads is filtered by the distribution column, and
-- it requires that column in every primary, unique and foreign key of a distributed table. Ids stay unique as they
-- were (ObjectIds); the keys only gain the environment, and each join to a subscriber or a workflow names it too.
--
-- Counts. The counting (which counts a row's change moves, by how much, written once per count in key order) is one
-- function per table, taking the changed rows as a JSON array of {environment_id, ..., n}: n is +1 for a row as it is
-- and -1 for a row as it was. Here statement-level triggers hand it a statement's rows at once, from their transition
-- tables, so that a batch writes each count once. Citus cannot run transition tables: there, row-level triggers hand
-- it one row at a time (server/store/citus/distribute.sql). A bulk load turns either off and recounts (kept-counts.ts).

-- Keys -----------------------------------------------------------------------------------------------------------

-- The old keys by what they are, not by name: a database made before 0.3.0 has them under other names.
DO $$
DECLARE
  key record;
BEGIN
  FOR key IN
    SELECT conrelid::regclass AS owner, conname FROM pg_constraint
    WHERE conparentid = 0 AND (
      (contype = 'f' AND conrelid = 'notifications'::regclass
        AND confrelid IN ('subscribers'::regclass, 'workflows'::regclass))
      OR (contype = 'p' AND conrelid IN ('subscribers'::regclass, 'workflows'::regclass, 'notifications'::regclass)))
    ORDER BY contype = 'p' -- the foreign keys first: they hold on to the primary keys
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', key.owner, key.conname);
  END LOOP;
END $$;

ALTER TABLE subscribers ADD CONSTRAINT subscribers_pkey PRIMARY KEY (environment_id, id);
ALTER TABLE workflows ADD CONSTRAINT workflows_pkey PRIMARY KEY (environment_id, id);
ALTER TABLE notifications ADD CONSTRAINT notifications_pkey PRIMARY KEY (environment_id, id, created_at);

ALTER TABLE notifications ADD CONSTRAINT notifications_subscriber_fkey
  FOREIGN KEY (environment_id, subscriber_id) REFERENCES subscribers (environment_id, id);
ALTER TABLE notifications ADD CONSTRAINT notifications_template_fkey
  FOREIGN KEY (environment_id, template_id) REFERENCES workflows (environment_id, id);

-- The workflows' own index by environment is the primary key now.
DROP INDEX workflows_environment;

-- Counts of subscribers -------------------------------------------------------------------------------------------

DROP TRIGGER subscribers_count_insert ON subscribers;
DROP TRIGGER subscribers_count_update ON subscribers;
DROP TRIGGER subscribers_count_delete ON subscribers;
DROP TRIGGER subscribers_email_domains_insert ON subscribers;
DROP TRIGGER subscribers_email_domains_update ON subscribers;
DROP TRIGGER subscribers_email_domains_delete ON subscribers;
DROP TRIGGER subscribers_search_gram_counts_insert ON subscribers;
DROP TRIGGER subscribers_search_gram_counts_update ON subscribers;
DROP TRIGGER subscribers_search_gram_counts_delete ON subscribers;
DROP FUNCTION count_live_subscribers();
DROP FUNCTION count_email_domains();
DROP FUNCTION count_subscriber_search_grams();

-- Changed subscribers, [{environment_id, email_search, phone_search, name_search, n}] (a deleted row is no change: it
-- counts nowhere), to every count of their environments: live subscribers, per e-mail domain, per short gram. Each
-- count is written once, by the net change, in key order, so that two transactions never take their row locks in
-- opposite orders; a change that nets to nothing (a PATCH of `data`) writes nothing. PL/pgSQL rather than SQL: Citus
-- plans no statement of an SQL function that uses its parameters.
CREATE FUNCTION count_subscriber_changes(changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriber_counts AS c (environment_id, live)
  SELECT environment_id, sum(n) FROM jsonb_to_recordset(changes) AS r(environment_id char(24), n integer)
  GROUP BY environment_id HAVING sum(n) <> 0 ORDER BY environment_id
  ON CONFLICT (environment_id) DO UPDATE SET live = c.live + excluded.live;

  INSERT INTO subscriber_email_domains AS c (environment_id, domain, live)
  SELECT environment_id, email_domain(email_search), sum(n)
  FROM jsonb_to_recordset(changes) AS r(environment_id char(24), email_search text, n integer)
  WHERE email_search IS NOT NULL GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
  ON CONFLICT (environment_id, domain) DO UPDATE SET live = c.live + excluded.live;

  INSERT INTO subscriber_search_gram_counts AS c (environment_id, searched, gram, live)
  SELECT g.environment_id, g.searched, g.gram, sum(r.n)
  FROM jsonb_to_recordset(changes)
      AS r(environment_id char(24), email_search text, phone_search text, name_search text, n integer),
    subscriber_search_grams(r.environment_id, r.email_search, r.phone_search, r.name_search) g
  GROUP BY 1, 2, 3 HAVING sum(r.n) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (environment_id, searched, gram) DO UPDATE SET live = c.live + excluded.live;
END $$;

-- A statement's subscribers as changes: the rows as they are (+1) and as they were (-1), live ones only; of an update,
-- only the rows whose searched columns or `deleted` changed.
CREATE FUNCTION count_subscriber_statement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM count_subscriber_changes((
      SELECT jsonb_agg(jsonb_build_object('environment_id', environment_id, 'email_search', email_search,
        'phone_search', phone_search, 'name_search', name_search, 'n', 1))
      FROM new_rows WHERE NOT deleted));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM count_subscriber_changes((
      SELECT jsonb_agg(jsonb_build_object('environment_id', environment_id, 'email_search', email_search,
        'phone_search', phone_search, 'name_search', name_search, 'n', -1))
      FROM old_rows WHERE NOT deleted));
  ELSE
    PERFORM count_subscriber_changes((
      SELECT jsonb_agg(change) FROM (
        SELECT jsonb_build_object('environment_id', n.environment_id, 'email_search', n.email_search,
          'phone_search', n.phone_search, 'name_search', n.name_search, 'n', 1) AS change
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE NOT n.deleted AND (n.email_search, n.phone_search, n.name_search, n.deleted)
          IS DISTINCT FROM (o.email_search, o.phone_search, o.name_search, o.deleted)
        UNION ALL
        SELECT jsonb_build_object('environment_id', o.environment_id, 'email_search', o.email_search,
          'phone_search', o.phone_search, 'name_search', o.name_search, 'n', -1)
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE NOT o.deleted AND (n.email_search, n.phone_search, n.name_search, n.deleted)
          IS DISTINCT FROM (o.email_search, o.phone_search, o.name_search, o.deleted)
      ) changes));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER subscribers_kept_counts_insert AFTER INSERT ON subscribers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_subscriber_statement();
CREATE TRIGGER subscribers_kept_counts_update AFTER UPDATE ON subscribers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION count_subscriber_statement();
CREATE TRIGGER subscribers_kept_counts_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_subscriber_statement();

-- Counts of notifications -----------------------------------------------------------------------------------------

DROP TRIGGER notifications_terms_insert ON notifications;
DROP TRIGGER notifications_terms_update ON notifications;
DROP TRIGGER notifications_terms_delete ON notifications;
DROP FUNCTION count_notification_terms();

-- Changed notifications, [{environment_id, filter_terms, n}], to their environments' counts of each filter term.
CREATE FUNCTION count_notification_changes(changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO notification_term_counts AS c (environment_id, term, notifications)
  SELECT r.environment_id, term, sum(r.n)
  FROM jsonb_to_recordset(changes) AS r(environment_id char(24), filter_terms text[], n integer),
    unnest(r.filter_terms) AS term
  GROUP BY 1, 2 HAVING sum(r.n) <> 0 ORDER BY 1, 2
  ON CONFLICT (environment_id, term) DO UPDATE SET notifications = c.notifications + excluded.notifications;
END $$;

-- A statement's notifications as changes: as they are (+1) and as they were (-1); of an update, only those whose terms
-- changed.
CREATE FUNCTION count_notification_statement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM count_notification_changes((
      SELECT jsonb_agg(jsonb_build_object('environment_id', environment_id, 'filter_terms', filter_terms, 'n', 1))
      FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM count_notification_changes((
      SELECT jsonb_agg(jsonb_build_object('environment_id', environment_id, 'filter_terms', filter_terms, 'n', -1))
      FROM old_rows));
  ELSE
    PERFORM count_notification_changes((
      SELECT jsonb_agg(change) FROM (
        SELECT jsonb_build_object('environment_id', n.environment_id, 'filter_terms', n.filter_terms, 'n', 1) AS change
        FROM new_rows n JOIN old_rows o ON o.id = n.id AND o.created_at = n.created_at
        WHERE n.filter_terms IS DISTINCT FROM o.filter_terms
        UNION ALL
        SELECT jsonb_build_object('environment_id', o.environment_id, 'filter_terms', o.filter_terms, 'n', -1)
        FROM old_rows o JOIN new_rows n ON n.id = o.id AND n.created_at = o.created_at
        WHERE n.filter_terms IS DISTINCT FROM o.filter_terms
      ) changes));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER notifications_kept_counts_insert AFTER INSERT ON notifications
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_notification_statement();
CREATE TRIGGER notifications_kept_counts_update AFTER UPDATE ON notifications
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION count_notification_statement();
CREATE TRIGGER notifications_kept_counts_delete AFTER DELETE ON notifications
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_notification_statement();
