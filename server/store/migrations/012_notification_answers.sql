-- A notification's own fields kept as the JSON text its answer sends (D59, server/store/notification-answer.ts): a page
-- of the list is these texts with each one's subscriber and workflow summaries appended, nothing parsed or
-- stringified. `details` stays for the rows written before this migration, which are answered the typed way from
-- their columns (to the same bytes) until the server has rewritten them (`fillAnswers`); a row written from now on
-- has its `answer` and no `details`. (No CHECK that a row has one of them: Citus cannot distribute a partitioned
-- table with one, "child table is missing constraint".)
ALTER TABLE notifications ADD COLUMN answer text;
ALTER TABLE notifications ALTER COLUMN details DROP NOT NULL;

-- lz4, as `details` (migration 008, D51), where the server has it; a partition made later takes the parent's setting.
DO $$
DECLARE
  partition regclass;
BEGIN
  ALTER TABLE notifications ALTER COLUMN answer SET COMPRESSION lz4;
  FOR partition IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'notifications'::regclass LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN answer SET COMPRESSION lz4', partition);
  END LOOP;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;

-- The rows left to rewrite (server/store/answer-fill.ts), found without reading the others; empty once they are
-- rewritten, and in a database made after this migration.
CREATE INDEX notifications_without_answer ON notifications (environment_id) WHERE answer IS NULL;
