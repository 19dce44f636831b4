-- The kept counts' UPDATE trigger on subscribers as a row trigger with a WHEN: a PATCH of what no count reads
-- (`data`, `locale`, `avatar`, `timezone`, the benchmark's PATCH) fires nothing (D81, issue 45).
--
-- Migration 006 made it a statement trigger over transition tables, as the INSERT and DELETE triggers are: for every
-- UPDATE, PostgreSQL copied the row's old and new versions (its `data` included) into two tuple stores, called the
-- trigger's function, which joined them to find that no searched column changed, and called count_subscriber_changes
-- with nothing, three INSERT ... SELECT that wrote nothing. On the bench data that was 0.6-0.8 ms of a `data` UPDATE's
-- 0.6-0.8 ms (EXPLAIN ANALYZE, warm connection, the machine busy); with this trigger the same UPDATE is 0.04-0.08 ms,
-- and the PATCH's one call 1.24x as many a second (`npm run bench:patches`). A row trigger's WHEN is evaluated by the
-- executor on the row's two versions, without calling a function or keeping them.
--
-- Citus has run exactly this trigger since it was distributed (citus/distribute.sql: it runs no transition tables), so
-- the trigger is swapped only where the citus extension is absent. The function is made on every database: it is the
-- one Citus's triggers call (before this migration distribute.sql made it; CREATE OR REPLACE keeps such a database as
-- it is), and on a new Citus database distribute.sql runs after the migrations and propagates it to the workers with
-- the triggers, as it does count_subscriber_changes. Every UPDATE the store sends changes one subscriber
-- (the PATCH: subscribers.ts and migration 013), so a row trigger costs a name PATCH what the statement trigger did;
-- an UPDATE of many rows calls it once per changed row, each writing to its own connection's slot of the counts
-- (migration 007), so two such statements still never wait for each other. Inserts and deletes keep their statement
-- triggers: a load's batch or a deletion is many rows, counted in one call.

-- One row's change, handed to the same counting function as the statement triggers hand a statement's rows (migration
-- 006). The row's fields are named one by one: on a Citus shard, the trigger's rows are of the shard's own row type.
CREATE OR REPLACE FUNCTION count_subscriber_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changes jsonb := '[]';
BEGIN
  IF TG_OP <> 'INSERT' AND NOT OLD.deleted THEN
    changes := changes || jsonb_build_object('environment_id', OLD.environment_id, 'email_search', OLD.email_search,
      'phone_search', OLD.phone_search, 'name_search', OLD.name_search, 'n', -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NOT NEW.deleted THEN
    changes := changes || jsonb_build_object('environment_id', NEW.environment_id, 'email_search', NEW.email_search,
      'phone_search', NEW.phone_search, 'name_search', NEW.name_search, 'n', 1);
  END IF;
  PERFORM count_subscriber_changes(changes);
  RETURN NULL;
END $$;

DO $migration$
BEGIN
  IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
    DROP TRIGGER subscribers_kept_counts_update ON subscribers;
    CREATE TRIGGER subscribers_kept_counts_update AFTER UPDATE ON subscribers FOR EACH ROW
      WHEN ((OLD.email_search, OLD.phone_search, OLD.name_search, OLD.deleted)
        IS DISTINCT FROM (NEW.email_search, NEW.phone_search, NEW.name_search, NEW.deleted))
      EXECUTE FUNCTION count_subscriber_row();
  END IF;
END $migration$;
