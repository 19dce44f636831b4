/**
 * Changes to subscriber rows that the API does not make (soft and hard deletes, restores), for tests of what the
 * database keeps beside the rows: the kept counts of migrations 003 and 004.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../server/store/schema.js";

export type RowChange = "soft delete" | "restore" | "hard delete";
export const rowChanges: RowChange[] = ["soft delete", "restore", "hard delete"];

/** The organization an environment belongs to. */
export async function organizationOf(db: Kysely<Database>, environmentId: string): Promise<string> {
  const row = await db
    .selectFrom("environments")
    .select("organization_id")
    .where("id", "=", environmentId)
    .executeTakeFirstOrThrow();
  return row.organization_id;
}

/** Every `nth` subscriber of an environment, in `_id` order: the rows a test changes. */
export async function everyNthSubscriber(db: Kysely<Database>, environmentId: string, nth: number) {
  const rows = await db
    .selectFrom("subscribers")
    .select(["id", "subscriber_id"])
    .where("environment_id", "=", environmentId)
    .orderBy("id")
    .execute();
  return rows.filter((_, i) => i % nth === 0);
}

/** Soft-deletes, restores or deletes a subscriber row (with its notifications, which refer to it). */
export async function changeRow(db: Kysely<Database>, id: string, change: RowChange): Promise<void> {
  if (change === "hard delete") {
    await db.deleteFrom("notifications").where("subscriber_id", "=", id).execute();
    await db.deleteFrom("subscribers").where("id", "=", id).execute();
  } else {
    await db
      .updateTable("subscribers")
      .set({ deleted: change === "soft delete" })
      .where("id", "=", id)
      .execute();
  }
}
