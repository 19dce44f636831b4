import type { ColumnType, Generated } from "kysely";

/** Row types of the tables in migrations/. Column names are SQL's; the API's wire names are mapped in the store. */

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: Generated<Date>;
}

export interface EnvironmentsTable {
  id: string;
  organization_id: string;
  name: string;
  retention_days: number | null;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  key_hash: string;
  environment_id: string;
  created_at: Generated<Date>;
}

export interface SubscribersTable {
  id: string;
  environment_id: string;
  organization_id: string;
  subscriber_id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  avatar: string | null;
  locale: string | null;
  timezone: string | null;
  /** Generated lowercase copies that the substring filters search. */
  email_search: ColumnType<string | null, never, never>;
  phone_search: ColumnType<string | null, never, never>;
  name_search: ColumnType<string, never, never>;
  channels: Json<unknown[]>;
  topics: string[];
  is_online: boolean | null;
  last_online_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  version: Generated<number>;
  data: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  deleted: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WorkflowsTable {
  id: string;
  environment_id: string;
  name: string;
  origin: string | null;
  triggers: Json<unknown[]>;
}

export interface NotificationsTable {
  id: string;
  environment_id: string;
  organization_id: string;
  subscriber_id: string;
  transaction_id: string;
  template_id: string | null;
  digested_notification_id: string | null;
  channels: string[];
  severity: string | null;
  topic_keys: string[];
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Rows written before migration 012 (D59), until `fillAnswers` rewrites them; null otherwise. */
  details: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  /** The notification's own fields as its answer's JSON text, without the closing brace (notification-answer.ts). */
  answer: string | null;
  /** Generated from channels, severity and topic keys (migration 002); never written. */
  filter_terms: ColumnType<string[], never, never>;
}

/**
 * Each subscriber's `updated_at` beside its row, which the `updatedAt` order walks (migration 010): kept by triggers,
 * so that a PATCH of what no index reads is a HOT update of the subscriber.
 */
export interface SubscriberUpdateOrderTable {
  environment_id: string;
  id: string;
  updated_at: Timestamp;
}

/** Live (not deleted) subscribers per environment, kept by triggers. */
export interface SubscriberCountsTable {
  environment_id: string;
  live: ColumnType<string, never, never>;
}

/** Live subscribers per e-mail domain, per environment, kept by triggers (migration 003). */
export interface SubscriberEmailDomainsTable {
  environment_id: string;
  domain: string;
  /** Which connection's row (migration 007): a domain's count is the sum of its rows. */
  slot: ColumnType<number, never, never>;
  live: ColumnType<string, never, never>;
}

/** Live subscribers per gram of one to three characters of each searched column, kept by triggers (migration 004). */
export interface SubscriberSearchGramCountsTable {
  environment_id: string;
  searched: "email" | "phone" | "name";
  gram: string;
  /** Which connection's row (migration 007): a count is the sum of a gram's rows. */
  slot: ColumnType<number, never, never>;
  live: ColumnType<string, never, never>;
}

/** How many notifications carry each filter term, per environment, kept by triggers. */
export interface NotificationTermCountsTable {
  environment_id: string;
  term: string;
  notifications: ColumnType<string, never, never>;
}

export interface IdempotencyRecordsTable {
  environment_id: string;
  idempotency_key: string;
  fingerprint: string;
  status_code: number;
  /** The answer's text; NULL where the record keeps its subscriber's answer columns instead (migration 013). */
  body: string | null;
  /** A PATCH answered at once (D68): its subscriber's answer columns as written, the answer built from them. */
  subscriber: ColumnType<unknown, string | null | undefined, string | null> | null;
  /** The size of that answer's text, counted once when it is stored, for the bound on stored answers. */
  subscriber_bytes: number | null;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: Generated<Date>;
}

export interface RateLimitBucketsTable {
  key_hash: string;
  tokens: number;
  allowed: boolean;
  updated_at: Date;
}

export interface Database {
  organizations: OrganizationsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  subscribers: SubscribersTable;
  workflows: WorkflowsTable;
  notifications: NotificationsTable;
  subscriber_update_order: SubscriberUpdateOrderTable;
  subscriber_counts: SubscriberCountsTable;
  subscriber_email_domains: SubscriberEmailDomainsTable;
  subscriber_search_gram_counts: SubscriberSearchGramCountsTable;
  notification_term_counts: NotificationTermCountsTable;
  idempotency_records: IdempotencyRecordsTable;
  rate_limit_buckets: RateLimitBucketsTable;
  schema_migrations: SchemaMigrationsTable;
}
