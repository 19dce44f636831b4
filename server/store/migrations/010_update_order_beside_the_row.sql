-- The subscribers' `updatedAt` order kept beside their rows, so that a PATCH of what no index reads (`data`, `locale`,
-- `avatar`, `timezone`) is a HOT update: PostgreSQL writes the new version of the row on its own page and touches none
-- of the table's twelve indexes. Every PATCH sets `updated_at`, and while `subscribers_order_updated` indexed it, every
-- PATCH was a new entry in every index, the six gram indexes (GIN) the most costly (issue 45: 0.53 ms of a `data`
-- PATCH's 1.0 ms of PostgreSQL CPU, 72% of its WAL). Here `updated_at` stays on the row (answers read it there) and
-- its order is a narrow row of its own, (environment, id, updated_at), whose index orders the `updatedAt` walks.
--
-- Measured (D54) on the bench data at 300,000 subscribers with pgbench, the server's `data` PATCH in its transaction:
-- 16 connections 595-714 per second before, 1,689-1,786 after (98% of the updates HOT), of which writing the order
-- row takes about a tenth. Through the store, as the server runs a PATCH: bench/DATA-PATCH.md.
--
-- Who writes the order rows: the PATCH, in the statement that updates its subscriber (subscribers.ts; the store's
-- only UPDATE of `updated_at`); a trigger for an INSERT (a statement trigger; on Citus, which runs no transition
-- tables, a row trigger: citus/distribute.sql); the foreign key deletes them with their subscriber (and TRUNCATE ...
-- CASCADE empties them); and a bulk load, which turns the triggers off, writes them once at its end (kept-counts.ts).
-- Not a trigger for the PATCH: on Citus a row trigger's statement goes through the distributed executor from the
-- shard, and cost more than the HOT update saved (bench/DATA-PATCH.md).

-- Whether this database's subscribers are already spread over Citus workers (a Citus database made before this
-- migration). A new database, Citus or not, is distributed after its migrations (citus/distribute.sql).
CREATE FUNCTION subscribers_distributed() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  distributed boolean := false;
BEGIN
  IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = ''subscribers''::regclass)'
      INTO distributed;
  END IF;
  RETURN distributed;
END $$;

CREATE TABLE subscriber_update_order (
  environment_id char(24) NOT NULL,
  id char(24) NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (environment_id, id)
);

DO $$
BEGIN
  IF subscribers_distributed() THEN
    PERFORM create_distributed_table('subscriber_update_order', 'environment_id', colocate_with => 'subscribers');
  END IF;
END $$;

INSERT INTO subscriber_update_order (environment_id, id, updated_at)
SELECT environment_id, id, updated_at FROM subscribers;

ALTER TABLE subscriber_update_order ADD CONSTRAINT subscriber_update_order_subscriber_fkey
  FOREIGN KEY (environment_id, id) REFERENCES subscribers (environment_id, id) ON DELETE CASCADE;

-- Deleted subscribers keep their order row (a walk joins the subscriber, which says whether it is live).
CREATE INDEX subscriber_update_order_walk ON subscriber_update_order (environment_id, updated_at, id);

DROP INDEX subscribers_order_updated;

-- Room on each page for the next versions of its rows: a HOT update needs its row's page to have it. New pages get it;
-- older ones as PostgreSQL prunes the versions that PATCHes leave behind.
ALTER TABLE subscribers SET (fillfactor = 90);

-- One function for the statement trigger (a statement's new rows) and the row trigger of Citus (one row).
CREATE FUNCTION write_subscriber_update_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    INSERT INTO subscriber_update_order (environment_id, id, updated_at)
    SELECT environment_id, id, updated_at FROM new_rows;
  ELSE
    INSERT INTO subscriber_update_order (environment_id, id, updated_at)
    VALUES (NEW.environment_id, NEW.id, NEW.updated_at);
  END IF;
  RETURN NULL;
END $$;

DO $$
BEGIN
  IF subscribers_distributed() THEN
    -- As citus/distribute.sql makes them on a new Citus database.
    SET LOCAL citus.enable_unsafe_triggers = on;
    CREATE TRIGGER subscribers_update_order_insert AFTER INSERT ON subscribers
      FOR EACH ROW EXECUTE FUNCTION write_subscriber_update_order();
  ELSE
    CREATE TRIGGER subscribers_update_order_insert AFTER INSERT ON subscribers
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION write_subscriber_update_order();
  END IF;
END $$;

DROP FUNCTION subscribers_distributed();
