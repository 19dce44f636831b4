-- A notification's `details` (its jobs, payload and the rest of the answer beyond the columns: about 2.2 kB of JSON, so
-- most rows are compressed when written) are compressed with lz4 instead of pglz, PostgreSQL's default, where the
-- server has lz4 (every PostgreSQL 15 of Debian and the official images; PGlite has not, and keeps pglz).
--
-- Measured on the bench data (100,000 notifications, COPY into a bare copy of the table, interleaved twice): pglz
-- 5.08 and 5.45 s, lz4 3.24 and 3.47 s; a value stored in 1,304 bytes on average with pglz, 1,415 with lz4. Only
-- values written from now on are lz4: PostgreSQL reads both, and nothing is rewritten.
--
-- A partition made later (`ensure_notification_partitions`) takes the parent's setting; the ones there are now are
-- set one by one, since ALTER TABLE on the parent does not reach them. On Citus the commands reach every shard.
DO $$
DECLARE
  partition regclass;
BEGIN
  ALTER TABLE notifications ALTER COLUMN details SET COMPRESSION lz4;
  FOR partition IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'notifications'::regclass LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN details SET COMPRESSION lz4', partition);
  END LOOP;
EXCEPTION WHEN feature_not_supported THEN
  -- "compression method lz4 not supported": built without lz4 (PGlite). The block's changes are undone; pglz stays.
  NULL;
END $$;
