/**
 * Many rows in one statement: each column travels as one array parameter and `unnest` turns the arrays back into
 * rows. One round trip and one parse per batch, on PostgreSQL and PGlite alike (COPY would need a driver of its own).
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { DemoNotification, DemoSubscriber } from "../demo/generate.js";
import type { Database } from "./schema.js";

/** The text form of a PostgreSQL array, for array columns sent through `unnest` (which cannot nest arrays). */
function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, (char) => `\\${char}`)}"`).join(",")}}`;
}

function column<T>(rows: readonly T[], read: (row: T) => unknown, type: string): RawBuilder<unknown> {
  return sql`${rows.map(read)}::${sql.raw(type)}[]`;
}

export async function insertSubscribers(db: Kysely<Database>, rows: readonly DemoSubscriber[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = sql.join([
    column(rows, (r) => r.id, "text"),
    column(rows, (r) => r.environment_id, "text"),
    column(rows, (r) => r.organization_id, "text"),
    column(rows, (r) => r.subscriber_id, "text"),
    column(rows, (r) => r.first_name, "text"),
    column(rows, (r) => r.last_name, "text"),
    column(rows, (r) => r.email, "text"),
    column(rows, (r) => r.phone, "text"),
    column(rows, (r) => r.avatar, "text"),
    column(rows, (r) => r.locale, "text"),
    column(rows, (r) => r.timezone, "text"),
    column(rows, (r) => JSON.stringify(r.channels), "text"),
    column(rows, (r) => arrayLiteral(r.topics), "text"),
    column(rows, (r) => r.is_online, "boolean"),
    column(rows, (r) => r.last_online_at, "timestamptz"),
    column(rows, (r) => r.version, "integer"),
    column(rows, (r) => (r.data === null ? null : JSON.stringify(r.data)), "text"),
    column(rows, (r) => r.deleted, "boolean"),
    column(rows, (r) => r.created_at, "timestamptz"),
    column(rows, (r) => r.updated_at, "timestamptz"),
  ]);
  await sql`
    INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id, first_name, last_name, email, phone,
      avatar, locale, timezone, channels, topics, is_online, last_online_at, version, data, deleted, created_at,
      updated_at)
    SELECT id, environment_id, organization_id, subscriber_id, first_name, last_name, email, phone, avatar, locale,
      timezone, channels::jsonb, topics::text[], is_online, last_online_at, version, data::jsonb, deleted, created_at,
      updated_at
    FROM unnest(${columns}) AS t(id, environment_id, organization_id, subscriber_id, first_name, last_name, email,
      phone, avatar, locale, timezone, channels, topics, is_online, last_online_at, version, data, deleted,
      created_at, updated_at)`.execute(db);
}

export async function insertNotifications(db: Kysely<Database>, rows: readonly DemoNotification[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = sql.join([
    column(rows, (r) => r.id, "text"),
    column(rows, (r) => r.environment_id, "text"),
    column(rows, (r) => r.organization_id, "text"),
    column(rows, (r) => r.subscriber_id, "text"),
    column(rows, (r) => r.transaction_id, "text"),
    column(rows, (r) => r.template_id, "text"),
    column(rows, (r) => r.digested_notification_id, "text"),
    column(rows, (r) => arrayLiteral(r.channels), "text"),
    column(rows, (r) => r.severity, "text"),
    column(rows, (r) => arrayLiteral(r.topic_keys), "text"),
    column(rows, (r) => r.created_at, "timestamptz"),
    column(rows, (r) => r.updated_at, "timestamptz"),
    column(rows, (r) => JSON.stringify(r.details), "text"),
  ]);
  await sql`
    INSERT INTO notifications (id, environment_id, organization_id, subscriber_id, transaction_id, template_id,
      digested_notification_id, channels, severity, topic_keys, created_at, updated_at, details)
    SELECT id, environment_id, organization_id, subscriber_id, transaction_id, template_id, digested_notification_id,
      channels::text[], severity, topic_keys::text[], created_at, updated_at, details::jsonb
    FROM unnest(${columns}) AS t(id, environment_id, organization_id, subscriber_id, transaction_id, template_id,
      digested_notification_id, channels, severity, topic_keys, created_at, updated_at, details)`.execute(db);
}
