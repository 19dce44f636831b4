-- The gram indexes of the substring filters keep a small pending list. GIN adds new entries to a pending list that
-- every search reads whole, until a VACUUM (or the list's size limit, 4 MB by default) merges it into the index:
-- after 28,000 PATCHes to 1M subscribers it held 3,558 entries on 210 pages, and a one-match e-mail search read 253
-- buffers instead of 17 (store p50 4.6 ms instead of 1.8). At 64 kB, the smallest limit, a search reads a few pages
-- of it at most, and a PATCH (never a HOT update: its updated_at is indexed) still only appends its grams, with a
-- merge every few hundred PATCHes. Measured on the bench data: search.email p50 4.6 -> 2.0 ms, name 14.6 -> 7.2,
-- phone 7.8 -> 2.9, the list's search 8.3 -> 4.8; patch 1.8 -> 1.6 ms (without a pending list at all, 2.3 ms).
ALTER INDEX subscribers_email_grams SET (gin_pending_list_limit = 64);
ALTER INDEX subscribers_phone_grams SET (gin_pending_list_limit = 64);
ALTER INDEX subscribers_name_grams SET (gin_pending_list_limit = 64);
-- What a list already holds is merged now rather than at the next VACUUM.
SELECT gin_clean_pending_list('subscribers_email_grams'::regclass);
SELECT gin_clean_pending_list('subscribers_phone_grams'::regclass);
SELECT gin_clean_pending_list('subscribers_name_grams'::regclass);
