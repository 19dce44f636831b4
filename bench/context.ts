/** What the benchmark shapes need to know about the loaded data: ids, keys and values that exist (or rarely do). */
import { sql } from "kysely";
import { defaultDemoOptions, demoApiKey } from "../server/demo/generate.js";
import type { Store } from "../server/store/store.js";

export interface BenchContext {
  apiKey: string;
  environmentId: string;
  subscribers: number;
  notifications: number;
  /** A subscriber `_id` this many rows deep in the default order (`_id` descending), and the depth. */
  deepCursor: string;
  deepCursorRow: number;
  /** The cursor of the second page, for the first-page/deep-page comparison. */
  firstCursor: string;
  /**
   * Subscribers the PATCH shapes write, spread over the whole table (every thousandth row in `_id` order), as a
   * service's PATCHes are: adjacent rows PATCHed from 16 connections share pages that a HOT update can rarely prune,
   * so their updates left the page (bench/DATA-PATCH.md). The first is the first sampled row's, as before.
   */
  subscriberIds: string[];
  email: string;
  lastName: string;
  phoneDigits: string;
  notificationId: string;
  transactionId: string;
  /** The "Password changed" workflow: in_app and email, severity high. */
  templateId: string;
}

export async function benchContext(store: Store, deepRow = 900_000): Promise<BenchContext> {
  const apiKey = demoApiKey(defaultDemoOptions.seed, "Production");
  const environment = await store.access.environmentForKey(apiKey);
  if (!environment) throw new Error("no demo data: run `npm run bench:data` first");
  const { environmentId } = environment;
  const counted = await sql<{ subscribers: number; notifications: number }>`
    SELECT (SELECT count(*)::int FROM subscribers WHERE environment_id = ${environmentId} AND NOT deleted) AS subscribers,
           (SELECT count(*)::int FROM notifications WHERE environment_id = ${environmentId}) AS notifications`.execute(
    store.db,
  );
  const { subscribers, notifications } = counted.rows[0] as { subscribers: number; notifications: number };
  const deepCursorRow = Math.min(deepRow, Math.floor(subscribers * 0.97));
  const byIdDescending = (offset: number) =>
    store.db
      .selectFrom("subscribers")
      .select("id")
      .where("environment_id", "=", environmentId)
      .where("deleted", "=", false)
      .orderBy("id", "desc")
      .offset(offset)
      .limit(1)
      .executeTakeFirstOrThrow();
  const first = await store.db
    .selectFrom("subscribers")
    .select(["subscriber_id", "email", "last_name", "phone"])
    .where("environment_id", "=", environmentId)
    .where("deleted", "=", false)
    .where("email", "is not", null)
    .where("last_name", "is not", null)
    .where("phone", "is not", null)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  if (!first) throw new Error("no subscribers with an email, last name and phone");
  const spread = await sql<{ subscriber_id: string }>`
    SELECT subscriber_id FROM (
      SELECT subscriber_id, row_number() OVER (ORDER BY id) AS n
      FROM subscribers WHERE environment_id = ${environmentId} AND NOT deleted
    ) AS numbered
    WHERE n % ${Math.max(1, Math.floor(subscribers / 1000))} = 0 AND subscriber_id <> ${first.subscriber_id}
    LIMIT 999`.execute(store.db);
  const notification = await store.db
    .selectFrom("notifications")
    .select(["id", "transaction_id"])
    .where("environment_id", "=", environmentId)
    .orderBy("created_at", "desc")
    .offset(Math.floor(notifications / 2))
    .limit(1)
    .executeTakeFirstOrThrow();
  const workflow = await store.db
    .selectFrom("workflows")
    .select("id")
    .where("environment_id", "=", environmentId)
    .where("name", "=", "Password changed")
    .executeTakeFirstOrThrow();
  return {
    apiKey,
    environmentId,
    subscribers,
    notifications,
    deepCursor: (await byIdDescending(deepCursorRow - 1)).id,
    deepCursorRow,
    firstCursor: (await byIdDescending(9)).id,
    subscriberIds: [first.subscriber_id, ...spread.rows.map((row) => row.subscriber_id)],
    email: first.email as string,
    lastName: first.last_name as string,
    phoneDigits: (first.phone as string).slice(3, 8),
    notificationId: notification.id,
    transactionId: notification.transaction_id,
    templateId: workflow.id,
  };
}
