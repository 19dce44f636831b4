-- One token bucket per API key, shared by every API instance on this database (RATE_LIMIT_STORE=database), so that
-- N instances behind a load balancer give a key the configured rate once, not N times. Each request takes a token
-- in one atomic statement (server/store/rate-limits.ts). UNLOGGED: a bucket is worth nothing after a crash (it
-- would refill within a minute anyway), and skipping the WAL keeps this write off the hot path's disk.
CREATE UNLOGGED TABLE rate_limit_buckets (
  key_hash text PRIMARY KEY,
  -- Tokens left after the last request, fractional: the refill is continuous.
  tokens double precision NOT NULL,
  -- Whether the last request got a token.
  allowed boolean NOT NULL,
  updated_at timestamptz NOT NULL
);
