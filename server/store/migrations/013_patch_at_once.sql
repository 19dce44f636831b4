-- A PATCH with an Idempotency-Key in one round trip (D68, issue 45 item 3): the key's lock, its stored answer, the
-- subscriber's UPDATE, its order row and the answer stored for the key, in one call of `patch_subscriber_at_once`,
-- where the server made five (BEGIN, the claim, the UPDATE, the record, COMMIT), each about a quarter of a millisecond
-- of its CPU. The call is its own transaction: what it wrote commits together or not at all, and the key's lock
-- (the one `claim_idempotency_key` takes, of the same text) is held until then.
--
-- What such a call stores for the key is the subscriber's answer columns as they were written (`subscriber`, jsonb),
-- not the answer's text, which the server builds from those columns the one way it builds every subscriber's answer
-- (server/store/subscribers.ts `toSubscriber`); `body` is NULL then. A record written otherwise (a 404's answer) keeps
-- its text in `body` as before.
ALTER TABLE idempotency_records ALTER COLUMN body DROP NOT NULL;
ALTER TABLE idempotency_records ADD COLUMN subscriber jsonb;
-- Its size as text, counted once when it is stored: the bound on an environment's stored answers (idempotency-records.ts
-- `keepNewestWithin`) sums these, where building each record's text at every check took seconds (PGlite, 350 records
-- of 30 kB: past 10 s).
ALTER TABLE idempotency_records ADD COLUMN subscriber_bytes integer;

-- The claim now reads both forms of a stored answer. (The four columns it returned before are the first four still,
-- so a server of the version before, reading them by name during an upgrade, finds a record of the new form to have
-- no answer, runs the PATCH, which then changes nothing and writes nothing, and stores its answer in the old form.)
DROP FUNCTION claim_idempotency_key(char(24), text);
CREATE FUNCTION claim_idempotency_key(for_environment char(24), for_key text)
RETURNS TABLE (locked boolean, fingerprint char(64), status_code integer, body text, subscriber jsonb)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended(for_environment::text || ':' || for_key, 0)) THEN
    RETURN QUERY SELECT false, NULL::char(64), NULL::integer, NULL::text, NULL::jsonb;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT true, r.fingerprint, r.status_code, r.body, r.subscriber
    FROM idempotency_records r
    WHERE r.environment_id = for_environment AND r.idempotency_key = for_key AND r.expires_at > now();
  IF NOT FOUND THEN
    RETURN QUERY SELECT true, NULL::char(64), NULL::integer, NULL::text, NULL::jsonb;
  END IF;
END $$;

-- `outcome`:
--   'held'    another transaction holds the key (the PATCH is answered 409); nothing was written.
--   'stored'  a live answer is stored for the key (`fingerprint`, `status_code`, and `body` or `subscriber`); nothing
--             was written: the server replays it, or answers 422 when the request differs from the one it answers.
--   'patched' the PATCH ran (a PATCH that changes nothing writes nothing) and its answer is stored: `subscriber`.
--   'absent'  no such live subscriber; nothing was written or stored, and the server runs the request the usual way,
--             which stores its 404.
-- The run happens only when the key is free and nothing is stored for it: `decideIdempotently` (contract/model)
-- answers "run" for exactly that case, which test/server/patch-at-once.test.ts holds this function to.
--
-- `fields` names what the PATCH sets (its JSON names); a field it does not name keeps its value, a field it names is
-- set to the value given, NULL included. One statement of fixed text for every PATCH, so that its plan is reused
-- (D56); the row triggers see the same OLD and NEW as for an UPDATE naming only the fields set, and an UPDATE that
-- changes no indexed column is a HOT update as before (D54).
CREATE FUNCTION patch_subscriber_at_once(
  for_environment char(24), for_subscriber text, for_key text, with_fingerprint char(64), ttl_seconds integer,
  fields text[], new_first_name text, new_last_name text, new_email text, new_phone text, new_avatar text,
  new_locale text, new_timezone text, new_data jsonb)
RETURNS TABLE (outcome text, fingerprint char(64), status_code integer, body text, subscriber jsonb)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  answer jsonb;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended(for_environment::text || ':' || for_key, 0)) THEN
    RETURN QUERY SELECT 'held'::text, NULL::char(64), NULL::integer, NULL::text, NULL::jsonb;
    RETURN;
  END IF;
  -- A query of its own after the lock: it reads every answer committed before the lock was granted (migration 011).
  RETURN QUERY
    SELECT 'stored'::text, r.fingerprint, r.status_code, r.body, r.subscriber
    FROM idempotency_records r
    WHERE r.environment_id = for_environment AND r.idempotency_key = for_key AND r.expires_at > now();
  IF FOUND THEN
    RETURN;
  END IF;

  -- A PATCH that sets no field changes nothing: no UPDATE then. (Its condition would be false for these values, which
  -- Citus routes to no shard of the table, and runs the statement in a way that fails inside this call: "cannot
  -- execute a distributed query from a query on a shard".)
  IF cardinality(fields) > 0 THEN
    WITH patched AS (
      UPDATE subscribers s SET
        first_name = CASE WHEN 'firstName' = ANY (fields) THEN new_first_name ELSE s.first_name END,
        last_name = CASE WHEN 'lastName' = ANY (fields) THEN new_last_name ELSE s.last_name END,
        email = CASE WHEN 'email' = ANY (fields) THEN new_email ELSE s.email END,
        phone = CASE WHEN 'phone' = ANY (fields) THEN new_phone ELSE s.phone END,
        avatar = CASE WHEN 'avatar' = ANY (fields) THEN new_avatar ELSE s.avatar END,
        locale = CASE WHEN 'locale' = ANY (fields) THEN new_locale ELSE s.locale END,
        timezone = CASE WHEN 'timezone' = ANY (fields) THEN new_timezone ELSE s.timezone END,
        data = CASE WHEN 'data' = ANY (fields) THEN new_data ELSE s.data END,
        version = s.version + 1,
        -- As the store's own PATCH (subscribers.ts): the statement's time, never before the time it replaces.
        updated_at = greatest(date_trunc('milliseconds', statement_timestamp()), s.updated_at)
      WHERE s.environment_id = for_environment AND s.subscriber_id = for_subscriber AND s.deleted = false
        AND (('firstName' = ANY (fields) AND s.first_name IS DISTINCT FROM new_first_name)
          OR ('lastName' = ANY (fields) AND s.last_name IS DISTINCT FROM new_last_name)
          OR ('email' = ANY (fields) AND s.email IS DISTINCT FROM new_email)
          OR ('phone' = ANY (fields) AND s.phone IS DISTINCT FROM new_phone)
          OR ('avatar' = ANY (fields) AND s.avatar IS DISTINCT FROM new_avatar)
          OR ('locale' = ANY (fields) AND s.locale IS DISTINCT FROM new_locale)
          OR ('timezone' = ANY (fields) AND s.timezone IS DISTINCT FROM new_timezone)
          OR ('data' = ANY (fields) AND s.data IS DISTINCT FROM new_data))
      RETURNING s.id, s.environment_id, s.organization_id, s.subscriber_id, s.first_name, s.last_name, s.email,
        s.phone, s.avatar, s.locale, s.timezone, s.channels, s.topics, s.is_online, s.last_online_at, s.version, s.data,
        s.deleted, s.created_at, s.updated_at
    ), ordered AS (
      UPDATE subscriber_update_order o SET updated_at = p.updated_at
      FROM patched p
      WHERE o.environment_id = for_environment AND o.id = p.id
    )
    SELECT to_jsonb(p) INTO answer FROM patched p;
  END IF;

  IF answer IS NULL THEN
    -- Nothing changed, or no such subscriber: the answer is the row as it is.
    SELECT to_jsonb(c) INTO answer FROM (
      SELECT s.id, s.environment_id, s.organization_id, s.subscriber_id, s.first_name, s.last_name, s.email, s.phone,
        s.avatar, s.locale, s.timezone, s.channels, s.topics, s.is_online, s.last_online_at, s.version, s.data,
        s.deleted, s.created_at, s.updated_at
      FROM subscribers s
      WHERE s.environment_id = for_environment AND s.subscriber_id = for_subscriber AND s.deleted = false
    ) AS c;
    IF answer IS NULL THEN
      RETURN QUERY SELECT 'absent'::text, NULL::char(64), NULL::integer, NULL::text, NULL::jsonb;
      RETURN;
    END IF;
  END IF;

  -- Only an expired record can be here (a live one was found above); it is replaced (idempotency-records.ts `save`).
  INSERT INTO idempotency_records AS r
    (environment_id, idempotency_key, fingerprint, status_code, body, subscriber, subscriber_bytes, created_at,
     expires_at)
  VALUES (for_environment, for_key, with_fingerprint, 200, NULL, answer, octet_length(answer::text), now(),
    now() + make_interval(secs => ttl_seconds))
  ON CONFLICT (environment_id, idempotency_key) DO UPDATE SET
    fingerprint = excluded.fingerprint, status_code = excluded.status_code, body = excluded.body,
    subscriber = excluded.subscriber, subscriber_bytes = excluded.subscriber_bytes, created_at = excluded.created_at, expires_at = excluded.expires_at;
  RETURN QUERY SELECT 'patched'::text, with_fingerprint, 200, NULL::text, answer;
END $$;
