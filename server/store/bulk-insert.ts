/**
 * Many rows in one statement: the batch travels as one JSON text parameter and `json_to_recordset` turns it back
 * into typed rows. One round trip, one parameter and one parse per batch, on PostgreSQL and PGlite alike; the demo
 * rows already use the column names. (Sending one array per column through `unnest` spent most of its time escaping
 * the large `details` documents into array literals.)
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { NotificationRow, SubscriberRow, WorkflowRow } from "./rows.js";
import type { Database } from "./schema.js";

export async function insertSubscribers(db: Kysely<Database>, rows: readonly SubscriberRow[]): Promise<void> {
  if (rows.length > 0) await insertSubscribersStatement(rows).execute(db);
}

/** The statement `insertSubscribers` runs (the benchmark EXPLAINs it). */
export function insertSubscribersStatement(rows: readonly SubscriberRow[]): RawBuilder<unknown> {
  return sql`
    INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id, first_name, last_name, email, phone,
      avatar, locale, timezone, channels, topics, is_online, last_online_at, version, data, deleted, created_at,
      updated_at)
    SELECT id, environment_id, organization_id, subscriber_id, first_name, last_name, email, phone, avatar, locale,
      timezone, channels, topics, is_online, last_online_at, version, data, deleted, created_at, updated_at
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS t(id text, environment_id text, organization_id text,
      subscriber_id text, first_name text, last_name text, email text, phone text, avatar text, locale text,
      timezone text, channels jsonb, topics text[], is_online boolean, last_online_at timestamptz, version integer,
      data jsonb, deleted boolean, created_at timestamptz, updated_at timestamptz)`;
}

export async function insertNotifications(db: Kysely<Database>, rows: readonly NotificationRow[]): Promise<void> {
  if (rows.length > 0) await insertNotificationsStatement(rows).execute(db);
}

/** The statement `insertNotifications` runs (the benchmark EXPLAINs it). */
export function insertNotificationsStatement(rows: readonly NotificationRow[]): RawBuilder<unknown> {
  return sql`
    INSERT INTO notifications (id, environment_id, organization_id, subscriber_id, transaction_id, template_id,
      digested_notification_id, channels, severity, topic_keys, created_at, updated_at, details)
    SELECT id, environment_id, organization_id, subscriber_id, transaction_id, template_id, digested_notification_id,
      channels, severity, topic_keys, created_at, updated_at, details
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS t(id text, environment_id text, organization_id text,
      subscriber_id text, transaction_id text, template_id text, digested_notification_id text, channels text[],
      severity text, topic_keys text[], created_at timestamptz, updated_at timestamptz, details jsonb)`;
}

/** Workflows with their trigger as Novu stores it: one event trigger named by the identifier, with its variables. */
export async function insertWorkflows(db: Kysely<Database>, rows: readonly WorkflowRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("workflows")
    .values(
      rows.map((workflow) => ({
        id: workflow.id,
        environment_id: workflow.environment_id,
        name: workflow.name,
        origin: workflow.origin,
        triggers: JSON.stringify([
          {
            type: "event",
            identifier: workflow.identifier,
            variables: workflow.variables.map((name) => ({ name })),
            subscriberVariables: [{ name: "firstName" }, { name: "email" }],
          },
        ]),
      })),
    )
    .execute();
}
