/**
 * Bulk loads check foreign keys once after the rows instead of row by row (server/store/foreign-key-checks.ts): a
 * broken key is still found, named, and rolls the whole load back; the row-by-row checks are on again afterwards.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { defaultDemoOptions, generateDemoData } from "../../server/demo/generate.js";
import { loadDemo } from "../../server/demo/load.js";
import { insertNotifications, insertSubscribers, insertWorkflows } from "../../server/store/bulk-insert.js";
import { withForeignKeysCheckedAfter } from "../../server/store/foreign-key-checks.js";
import type { Store } from "../../server/store/store.js";
import { drivers, emptyStores, onCitus } from "../support/databases.js";

const demo = { ...defaultDemoOptions, subscribers: 40, notifications: 60 };

describe.each(drivers)("foreign keys checked after a bulk load (%s)", (driver) => {
  const stores = emptyStores(driver);
  const fresh = () => stores.fresh();
  afterAll(() => stores.closeAll());
  const rows = async (store: Store, table: "subscribers" | "notifications") =>
    Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(store.db)).rows[0]?.n);

  it("a notification whose subscriber does not exist fails the load, names the key, and leaves nothing", async () => {
    const store = await fresh();
    const [environment] = generateDemoData(demo);
    if (!environment) throw new Error("no demo environment");
    const orphan = { ...(environment.notifications[0] as (typeof environment.notifications)[number]) };
    orphan.subscriber_id = "ffffffffffffffffffffffff";
    const load = store.transaction((tx) =>
      withForeignKeysCheckedAfter(tx.db, ["subscribers", "notifications"], async () => {
        const { environmentId, organizationId } = environment;
        await tx.access.ensureEnvironment(environment.name, { environmentId, organizationId });
        await insertWorkflows(tx.db, environment.workflows);
        await insertSubscribers(tx.db, environment.subscribers);
        await tx.partitions.ensure(new Date(demo.anchor.getTime() - 200 * 86_400_000), demo.anchor);
        await insertNotifications(tx.db, [...environment.notifications.slice(1), orphan]);
      }),
    );
    // On Citus the workers check each row themselves (they do not get the session's replication role), and name the
    // key with its shard's suffix; either way the load fails naming the key.
    await expect(load).rejects.toThrow(
      driver === "postgres" && onCitus
        ? /"notifications_[\d_]+" violates foreign key constraint "notifications_subscriber_fkey_\d+"/
        : /notifications breaks its foreign key notifications_subscriber_fkey/,
    );
    expect(await rows(store, "subscribers")).toBe(0);
    expect(await rows(store, "notifications")).toBe(0);
  });

  it("the demo load passes the checks, and row-by-row checks are back after it", async () => {
    const store = await fresh();
    await loadDemo(store, demo);
    expect(await rows(store, "notifications")).toBe(60);
    const { rows: settings } = await sql<{
      role: string;
    }>`SELECT current_setting('session_replication_role') AS role`.execute(store.db);
    expect(settings[0]?.role).toBe("origin");
    const insertOrphan = sql`
      INSERT INTO notifications (id, environment_id, organization_id, subscriber_id, transaction_id, created_at,
        updated_at, details)
      SELECT 'eeeeeeeeeeeeeeeeeeeeeeee', environment_id, organization_id, 'ffffffffffffffffffffffff', 'txn', created_at,
        updated_at, '{}' FROM notifications LIMIT 1`.execute(store.db);
    await expect(insertOrphan).rejects.toThrow(/foreign key/);
  });
});
