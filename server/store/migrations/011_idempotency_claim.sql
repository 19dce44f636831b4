-- A PATCH with an Idempotency-Key takes the key's lock and reads its stored answer in one round trip (issue 45: a
-- PATCH made six, each about a quarter of a millisecond of the server's CPU). The two cannot be one plain statement: a
-- statement reads with the snapshot it took when it began, before its lock, and the transaction that held the key
-- may commit its answer in between; that statement would not see the answer and the PATCH would run twice. In a
-- VOLATILE function each query takes a snapshot of its own (in READ COMMITTED, the server's level), so the read
-- after the lock sees every answer committed before the lock was granted. The lock is the one the server took with a
-- statement of its own before (`pg_try_advisory_xact_lock` of the same text), so servers of both versions running on
-- one database during an upgrade still exclude each other.
--
-- `locked` false: another transaction holds the key (the PATCH is answered 409). `locked` true and no `fingerprint`:
-- no live answer is stored for the key.
CREATE FUNCTION claim_idempotency_key(for_environment char(24), for_key text)
RETURNS TABLE (locked boolean, fingerprint char(64), status_code integer, body text)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended(for_environment::text || ':' || for_key, 0)) THEN
    RETURN QUERY SELECT false, NULL::char(64), NULL::integer, NULL::text;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT true, r.fingerprint, r.status_code, r.body
    FROM idempotency_records r
    WHERE r.environment_id = for_environment AND r.idempotency_key = for_key AND r.expires_at > now();
  IF NOT FOUND THEN
    RETURN QUERY SELECT true, NULL::char(64), NULL::integer, NULL::text;
  END IF;
END $$;
