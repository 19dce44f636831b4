/**
 * Many rows in one statement: the batch travels as one JSON text parameter and `json_to_recordset` turns it back
 * into typed rows. One round trip, one parameter and one parse per batch, on PostgreSQL and PGlite alike; the demo
 * rows already use the column names. (Sending one array per column through `unnest` spent most of its time escaping
 * the large `details` documents into array literals.)
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import { storedAnswer } from "./notification-answer.js";
import type { NotificationRow, SubscriberRow, WorkflowRow } from "./rows.js";
import type { Database } from "./schema.js";

/** The columns a bulk insert writes, each with its type in the recordset (the benchmark writes the same ones). */
export const subscriberColumnTypes = {
  id: "text",
  environment_id: "text",
  organization_id: "text",
  subscriber_id: "text",
  first_name: "text",
  last_name: "text",
  email: "text",
  phone: "text",
  avatar: "text",
  locale: "text",
  timezone: "text",
  channels: "jsonb",
  topics: "text[]",
  is_online: "boolean",
  last_online_at: "timestamptz",
  version: "integer",
  data: "jsonb",
  deleted: "boolean",
  created_at: "timestamptz",
  updated_at: "timestamptz",
} as const satisfies Record<keyof SubscriberRow & string, string>;

export const notificationColumnTypes = {
  id: "text",
  environment_id: "text",
  organization_id: "text",
  subscriber_id: "text",
  transaction_id: "text",
  template_id: "text",
  digested_notification_id: "text",
  channels: "text[]",
  severity: "text",
  topic_keys: "text[]",
  created_at: "timestamptz",
  updated_at: "timestamptz",
  answer: "text",
} as const satisfies Record<keyof NotificationInsert & string, string>;

/** A notification as written: its columns, and its own fields' answer as text (D59) where the row has `details`. */
type NotificationInsert = Omit<NotificationRow, "details"> & { answer: string };

/** The row as the table keeps it: `details` become the kept answer (notification-answer.ts). */
export function notificationInsert({ details, ...columns }: NotificationRow): NotificationInsert {
  return { ...columns, answer: storedAnswer({ ...columns, details }) };
}

/** The tables a bulk insert writes, each with its columns' types and the recordset function that reads its batch. */
const bulkTables = {
  subscribers: { types: subscriberColumnTypes, recordset: "json_to_recordset" },
  // `jsonb_to_recordset` took the large `details` documents faster than `json_to_recordset` (11,050 against 9,900
  // rows/s at 100,000).
  notifications: { types: notificationColumnTypes, recordset: "jsonb_to_recordset" },
} as const;

export type BulkTable = keyof typeof bulkTables;

/**
 * A batch as the bulk insert sends it: the rows as they are written, as one JSON text. Built apart from the statement
 * so that `npm run bench:data` can build it on another thread (bench/batch-worker.ts); the bytes are the same.
 */
export function subscriberBatchText(rows: readonly SubscriberRow[]): string {
  return JSON.stringify(rows);
}

export function notificationBatchText(rows: readonly NotificationRow[]): string {
  return JSON.stringify(rows.map(notificationInsert));
}

/** `INSERT INTO table (columns) SELECT columns FROM <recordset>(batch) AS t(column type, ...)`. */
export function insertBatchStatement(table: BulkTable, batch: string): RawBuilder<unknown> {
  const { types, recordset } = bulkTables[table];
  const columns = sql.raw(Object.keys(types).join(", "));
  const definitions = sql.raw(
    Object.entries(types)
      .map(([column, type]) => `${column} ${type}`)
      .join(", "),
  );
  const text = recordset === "json_to_recordset" ? sql`${batch}::json` : sql`${batch}::jsonb`;
  return sql`INSERT INTO ${sql.table(table)} (${columns}) SELECT ${columns}
    FROM ${sql.raw(recordset)}(${text}) AS t(${definitions})`;
}

export async function insertSubscribers(db: Kysely<Database>, rows: readonly SubscriberRow[]): Promise<void> {
  if (rows.length > 0) await insertSubscribersStatement(rows).execute(db);
}

/** The statement `insertSubscribers` runs (the benchmark EXPLAINs it). */
export function insertSubscribersStatement(rows: readonly SubscriberRow[]): RawBuilder<unknown> {
  return insertBatchStatement("subscribers", subscriberBatchText(rows));
}

export async function insertNotifications(db: Kysely<Database>, rows: readonly NotificationRow[]): Promise<void> {
  if (rows.length > 0) await insertNotificationsStatement(rows).execute(db);
}

/** The statement `insertNotifications` runs (the benchmark EXPLAINs it). */
export function insertNotificationsStatement(rows: readonly NotificationRow[]): RawBuilder<unknown> {
  return insertBatchStatement("notifications", notificationBatchText(rows));
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
