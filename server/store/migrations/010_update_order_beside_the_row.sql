-- The subscribers' `updatedAt` order kept beside their rows, so that a PATCH of what no index reads (`data`, `locale`,
-- `avatar`, `timezone`) is a HOT update: PostgreSQL writes the new version of the row on its own page and touches none
-- of the table's twelve indexes. Every PATCH sets `updated_at`, and while `subscribers_order_updated` indexed it, every
-- PATCH was a new entry in every index, the six gram indexes (GIN) the most costly (issue 45: 0.53 ms of a `data`
-- PATCH's 1.0 ms of PostgreSQL CPU, 72% of its WAL). Here `updated_at` stays on the row (answers read it there) and
-- its order is a narrow row of its own, (environment, id, updated_at), whose index orders the `updatedAt` walks.
--
-- Measured (D54) on the bench data at 300,000 subscribers, one connection, a `data` PATCH and its transaction as the
-- server sends them: 480-555 per second before, 1,100-1,340 after (98% of them HOT); the order row costs a tenth of it.
--
-- The order rows are derived: triggers keep them as the rows are written (a row trigger for an UPDATE that changes
-- `updated_at`, a statement trigger for an INSERT; on Citus row triggers for both: citus/distribute.sql), the foreign
-- key deletes them with their subscriber (and TRUNCATE ... CASCADE empties them), and a bulk load, which turns the
-- triggers off, writes them once at its end (kept-counts.ts).

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

-- One function for the statement trigger (a statement's new rows) and the row triggers (one row; on Citus, which runs
-- no transition tables, for inserts too).
CREATE FUNCTION write_subscriber_update_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    INSERT INTO subscriber_update_order (environment_id, id, updated_at)
    SELECT environment_id, id, updated_at FROM new_rows;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO subscriber_update_order (environment_id, id, updated_at)
    VALUES (NEW.environment_id, NEW.id, NEW.updated_at);
  ELSE
    UPDATE subscriber_update_order SET updated_at = NEW.updated_at
    WHERE environment_id = NEW.environment_id AND id = NEW.id;
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
  CREATE TRIGGER subscribers_update_order_update AFTER UPDATE OF updated_at ON subscribers FOR EACH ROW
    WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at) EXECUTE FUNCTION write_subscriber_update_order();
END $$;

DROP FUNCTION subscribers_distributed();
