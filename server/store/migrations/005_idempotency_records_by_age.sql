-- The stored answers of one environment by age: the bound on an environment's idempotency storage
-- (IDEMPOTENCY_MAX_MB_PER_ENVIRONMENT) drops its oldest answers first, reading them newest first through this index.
CREATE INDEX idempotency_records_environment_age ON idempotency_records (environment_id, created_at DESC);
