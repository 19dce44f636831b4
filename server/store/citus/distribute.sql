-- Citus (distributed PostgreSQL): the tables spread over the workers by environment, run once on a coordinator after
-- the migrations (server/store/migrate.ts, when the database has the citus extension). Nothing here runs on plain
-- PostgreSQL or PGlite, which keep the same schema on one node (docs/decisions.md, D41).
--
-- - What every shard must see, small and seldom written, is a reference table, a copy on every node: organizations,
--   environments, and the API keys (a key is looked up before its environment is known).
-- - An environment's data is distributed by environment_id, all of it co-located (a shard of subscribers sits beside
--   the same environments' notifications, workflows, counts and stored idempotent answers), so that every request,
--   which names one environment, runs on one shard, joins and all.
-- - The rate-limit buckets are keyed by what they limit (an API key's hash, or the address of a client trying unknown
--   keys), not by an environment: distributed by that key, a request's bucket is one shard too.
-- - Citus cannot run the statement triggers that keep the counts (transition tables): row triggers take their place,
--   handing the same counting functions one row at a time (migration 006).

SELECT create_reference_table('organizations');
SELECT create_reference_table('environments');
SELECT create_reference_table('api_keys');

DROP TRIGGER subscribers_kept_counts_insert ON subscribers;
DROP TRIGGER subscribers_kept_counts_update ON subscribers;
DROP TRIGGER subscribers_kept_counts_delete ON subscribers;
DROP TRIGGER notifications_kept_counts_insert ON notifications;
DROP TRIGGER notifications_kept_counts_update ON notifications;
DROP TRIGGER notifications_kept_counts_delete ON notifications;
DROP TRIGGER subscribers_update_order_insert ON subscribers;

-- Citus takes a foreign key between two of its tables only: the notifications' keys go, and come back once both
-- sides are distributed.
ALTER TABLE notifications DROP CONSTRAINT notifications_subscriber_fkey;
ALTER TABLE notifications DROP CONSTRAINT notifications_template_fkey;
ALTER TABLE subscriber_update_order DROP CONSTRAINT subscriber_update_order_subscriber_fkey;

SELECT create_distributed_table('subscribers', 'environment_id');
SELECT create_distributed_table('workflows', 'environment_id', colocate_with => 'subscribers');
SELECT create_distributed_table('notifications', 'environment_id', colocate_with => 'subscribers');
SELECT create_distributed_table('subscriber_update_order', 'environment_id', colocate_with => 'subscribers');
SELECT create_distributed_table('subscriber_counts', 'environment_id', colocate_with => 'subscribers');
SELECT create_distributed_table('subscriber_email_domains', 'environment_id', colocate_with => 'subscribers');
SELECT create_distributed_table('subscriber_search_gram_counts', 'environment_id', colocate_with => 'subscribers');
SELECT create_distributed_table('notification_term_counts', 'environment_id', colocate_with => 'subscribers');
SELECT create_distributed_table('idempotency_records', 'environment_id', colocate_with => 'subscribers');
SELECT create_distributed_table('rate_limit_buckets', 'key_hash', colocate_with => 'none');

ALTER TABLE notifications ADD CONSTRAINT notifications_subscriber_fkey
  FOREIGN KEY (environment_id, subscriber_id) REFERENCES subscribers (environment_id, id);
ALTER TABLE notifications ADD CONSTRAINT notifications_template_fkey
  FOREIGN KEY (environment_id, template_id) REFERENCES workflows (environment_id, id);
ALTER TABLE subscriber_update_order ADD CONSTRAINT subscriber_update_order_subscriber_fkey
  FOREIGN KEY (environment_id, id) REFERENCES subscribers (environment_id, id) ON DELETE CASCADE;

-- count_subscriber_row() is migration 014's, made on every database. The row's fields are named one by one: on a
-- shard, the trigger's rows are of the shard's own row type.
CREATE FUNCTION count_notification_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changes jsonb := '[]';
BEGIN
  IF TG_OP <> 'INSERT' THEN
    changes := changes || jsonb_build_object('environment_id', OLD.environment_id, 'filter_terms', OLD.filter_terms, 'n', -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    changes := changes || jsonb_build_object('environment_id', NEW.environment_id, 'filter_terms', NEW.filter_terms, 'n', 1);
  END IF;
  PERFORM count_notification_changes(changes);
  RETURN NULL;
END $$;

-- Citus calls triggers on distributed tables unsafe: it cannot check what they do. These write only the counts of the
-- row's own environment, which sit on the row's own node, and the row's own order row (migration 010), beside it.
SET LOCAL citus.enable_unsafe_triggers = on;
CREATE TRIGGER subscribers_kept_counts_insert AFTER INSERT ON subscribers
  FOR EACH ROW EXECUTE FUNCTION count_subscriber_row();
-- A PATCH of what no count reads (`data`, `locale`, ...) fires nothing.
CREATE TRIGGER subscribers_kept_counts_update AFTER UPDATE ON subscribers FOR EACH ROW
  WHEN ((OLD.email_search, OLD.phone_search, OLD.name_search, OLD.deleted)
    IS DISTINCT FROM (NEW.email_search, NEW.phone_search, NEW.name_search, NEW.deleted))
  EXECUTE FUNCTION count_subscriber_row();
CREATE TRIGGER subscribers_kept_counts_delete AFTER DELETE ON subscribers
  FOR EACH ROW EXECUTE FUNCTION count_subscriber_row();
CREATE TRIGGER notifications_kept_counts_insert AFTER INSERT ON notifications
  FOR EACH ROW EXECUTE FUNCTION count_notification_row();
CREATE TRIGGER notifications_kept_counts_update AFTER UPDATE ON notifications FOR EACH ROW
  WHEN (OLD.filter_terms IS DISTINCT FROM NEW.filter_terms)
  EXECUTE FUNCTION count_notification_row();
CREATE TRIGGER notifications_kept_counts_delete AFTER DELETE ON notifications
  FOR EACH ROW EXECUTE FUNCTION count_notification_row();
CREATE TRIGGER subscribers_update_order_insert AFTER INSERT ON subscribers
  FOR EACH ROW EXECUTE FUNCTION write_subscriber_update_order();
