-- Initial schema. PostgreSQL dialect; runs unchanged on PGlite and on a PostgreSQL 15+ server.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE organizations (
  id char(24) PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE environments (
  id char(24) PRIMARY KEY,
  organization_id char(24) NOT NULL REFERENCES organizations (id),
  name text NOT NULL UNIQUE,
  -- Days of notification history the environment may read; NULL means unlimited.
  retention_days integer CHECK (retention_days > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 hash of a key is stored; the key itself is shown once, when it is created.
CREATE TABLE api_keys (
  key_hash char(64) PRIMARY KEY,
  environment_id char(24) NOT NULL REFERENCES environments (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_environment ON api_keys (environment_id);

CREATE TABLE subscribers (
  id char(24) PRIMARY KEY,
  environment_id char(24) NOT NULL REFERENCES environments (id),
  organization_id char(24) NOT NULL REFERENCES organizations (id),
  subscriber_id text NOT NULL,
  first_name text,
  last_name text,
  email text,
  phone text,
  avatar text,
  locale text,
  timezone text,
  -- What the `name` filter searches: first name, a space, last name.
  full_name text GENERATED ALWAYS AS (coalesce(first_name, '') || ' ' || coalesce(last_name, '')) STORED,
  channels jsonb NOT NULL DEFAULT '[]',
  topics text[] NOT NULL DEFAULT '{}',
  is_online boolean,
  last_online_at timestamptz,
  version integer NOT NULL DEFAULT 0,
  data jsonb,
  deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX subscribers_subscriber_id ON subscribers (environment_id, subscriber_id) WHERE NOT deleted;
-- Keyset pagination: one index per sort key, each with the _id tiebreak.
CREATE INDEX subscribers_order_id ON subscribers (environment_id, id) WHERE NOT deleted;
CREATE INDEX subscribers_order_created ON subscribers (environment_id, created_at, id) WHERE NOT deleted;
CREATE INDEX subscribers_order_updated ON subscribers (environment_id, updated_at, id) WHERE NOT deleted;
-- Case-insensitive substring filters (ILIKE '%...%').
CREATE INDEX subscribers_email_trgm ON subscribers USING gin (email gin_trgm_ops);
CREATE INDEX subscribers_phone_trgm ON subscribers USING gin (phone gin_trgm_ops);
CREATE INDEX subscribers_full_name_trgm ON subscribers USING gin (full_name gin_trgm_ops);
-- Exact email lookups (the notification list's `emails` filter).
CREATE INDEX subscribers_email ON subscribers (environment_id, email) WHERE NOT deleted;

CREATE TABLE workflows (
  id char(24) PRIMARY KEY,
  environment_id char(24) NOT NULL REFERENCES environments (id),
  name text NOT NULL,
  origin text,
  triggers jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX workflows_environment ON workflows (environment_id);

CREATE TABLE notifications (
  id char(24) PRIMARY KEY,
  environment_id char(24) NOT NULL REFERENCES environments (id),
  organization_id char(24) NOT NULL REFERENCES organizations (id),
  subscriber_id char(24) NOT NULL REFERENCES subscribers (id),
  transaction_id text NOT NULL,
  template_id char(24) REFERENCES workflows (id),
  digested_notification_id char(24),
  channels text[] NOT NULL DEFAULT '{}',
  severity text,
  topic_keys text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Everything no filter reads: jobs (with execution details and steps), payload, tags, controls, to, topics,
  -- critical, contextKeys. It is read and written whole.
  details jsonb NOT NULL
);
CREATE INDEX notifications_order ON notifications (environment_id, created_at DESC, id DESC);
CREATE INDEX notifications_subscriber ON notifications (environment_id, subscriber_id, created_at DESC, id DESC);
CREATE INDEX notifications_template ON notifications (environment_id, template_id, created_at DESC, id DESC);
CREATE INDEX notifications_severity ON notifications (environment_id, severity, created_at DESC, id DESC);
CREATE INDEX notifications_transaction ON notifications (environment_id, transaction_id);
CREATE INDEX notifications_channels ON notifications USING gin (channels);
CREATE INDEX notifications_topic_keys ON notifications USING gin (topic_keys);

-- Stored answers to PATCH requests that carried an idempotency-key header.
CREATE TABLE idempotency_records (
  environment_id char(24) NOT NULL REFERENCES environments (id),
  idempotency_key text NOT NULL,
  fingerprint char(64) NOT NULL,
  status_code integer NOT NULL,
  -- The exact JSON text that was sent, so that a replay is byte-for-byte the same answer.
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (environment_id, idempotency_key)
);
CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);
