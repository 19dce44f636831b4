-- Notifications in monthly partitions of created_at, so that retention drops a whole month at once (no per-row
-- deletes, no WAL for each row, nothing for VACUUM to clean up) and the newest-first walk reads the newest month first.
-- Partitions are made ahead by ensure_notification_partitions(from, to): the server calls it at start and every
-- ten minutes for the current month and the next three; whoever writes older or later rows calls it for their range.
-- drop_notification_partitions(before) drops every month that ends on or before `before`, and takes its rows out
-- of notification_term_counts first (dropping a table fires no delete trigger).

-- The unpartitioned table steps aside: its indexes would hold the names the new ones need.
ALTER TABLE notifications RENAME TO notifications_unpartitioned;
ALTER INDEX notifications_pkey RENAME TO notifications_unpartitioned_pkey;
DROP INDEX notifications_order, notifications_subscriber, notifications_template, notifications_severity,
  notifications_transaction, notifications_filter_terms;

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
  details jsonb NOT NULL,
  filter_terms text[] GENERATED ALWAYS AS (notification_filter_terms(channels, severity, topic_keys)) STORED,
  -- A partitioned table's primary key must hold the partition key. Ids stay unique: they are ObjectIds.
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

-- Creates the monthly partitions that cover [from, to]; returns how many it created.
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

-- Drops the monthly partitions whose months end on or before `before`; returns their names.
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

SELECT ensure_notification_partitions(
  least(now(), coalesce((SELECT min(created_at) FROM notifications_unpartitioned), now())),
  greatest(now(), coalesce((SELECT max(created_at) FROM notifications_unpartitioned), now())) + interval '3 months');

INSERT INTO notifications (id, environment_id, organization_id, subscriber_id, transaction_id, template_id,
  digested_notification_id, channels, severity, topic_keys, created_at, updated_at, details)
SELECT id, environment_id, organization_id, subscriber_id, transaction_id, template_id, digested_notification_id,
  channels, severity, topic_keys, created_at, updated_at, details
FROM notifications_unpartitioned;
DROP TABLE notifications_unpartitioned;

CREATE INDEX notifications_order ON notifications (environment_id, created_at DESC, id DESC);
CREATE INDEX notifications_subscriber ON notifications (environment_id, subscriber_id, created_at DESC, id DESC);
CREATE INDEX notifications_template ON notifications (environment_id, template_id, created_at DESC, id DESC);
CREATE INDEX notifications_severity ON notifications (environment_id, severity, created_at DESC, id DESC);
CREATE INDEX notifications_transaction ON notifications (environment_id, transaction_id);
CREATE INDEX notifications_filter_terms ON notifications USING gin (filter_terms);

-- The term counts were kept by triggers on the old table (dropped with it): the same triggers on the new one.
CREATE TRIGGER notifications_terms_insert AFTER INSERT ON notifications
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_notification_terms();
CREATE TRIGGER notifications_terms_update AFTER UPDATE ON notifications
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_notification_terms();
CREATE TRIGGER notifications_terms_delete AFTER DELETE ON notifications
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_notification_terms();
