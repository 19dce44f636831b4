/**
 * `npm run bench` vacuums what a run deleted before it measures, and after its writes (bench/vacuum.ts). A VACUUM
 * removes only rows no snapshot can still see, and says nothing when one holds them: the benchmark's own writes start
 * an autovacuum ANALYZE whose snapshot did, and the next run's searches read past 21,000 dead index entries. Here a
 * session holds a snapshot from before the delete: the VACUUM waits for it, and warns when it is held too long.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vacuumWrittenTables } from "../../bench/vacuum.js";
import { openStore } from "../../server/store/store.js";
import { createPostgresDatabase, drivers, onAdmin, onCitus } from "../support/databases.js";

describe.skipIf(!drivers.includes("postgres") || onCitus)("the benchmark's VACUUM (postgres)", () => {
  let database: { url: string; drop(): Promise<void> };
  let store: Awaited<ReturnType<typeof openStore>>;

  beforeAll(async () => {
    database = await createPostgresDatabase({ migrated: true });
    store = await openStore({ databaseUrl: database.url, totalCountCap: 50_000 });
  }, 120_000);
  afterAll(async () => {
    await store?.close?.();
    await database?.drop();
  });

  /** 1,000 rows deleted while another session holds a snapshot from before; that session, to end when the test says. */
  async function deletedUnderASnapshot(): Promise<pg.Client> {
    await onAdmin(
      database.url,
      // Order rows without their subscribers: the foreign key's trigger off, as bench/ingest.ts deletes them.
      `SET session_replication_role = replica;
       INSERT INTO subscriber_update_order
         SELECT 'e00000000000000000000001', lpad(to_hex(n), 24, '0'), now() FROM generate_series(1, 1000) AS n`,
    );
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await holder.query("SELECT count(*) FROM subscriber_update_order");
    await onAdmin(database.url, "DELETE FROM subscriber_update_order");
    return holder;
  }

  it("waits until no older snapshot holds the deleted rows, then leaves none", async () => {
    const holder = await deletedUnderASnapshot();
    const warnings: string[] = [];
    let settled = false;
    const vacuumed = vacuumWrittenTables(store.store.db, (message) => warnings.push(message), 30_000).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(settled).toBe(false);
    await holder.query("COMMIT");
    await holder.end();
    expect(await vacuumed).toBe(0);
    expect(warnings).toEqual([]);
  }, 60_000);

  it("warns, naming the dead rows left, when a snapshot holds them past the wait", async () => {
    const holder = await deletedUnderASnapshot();
    try {
      const warnings: string[] = [];
      expect(await vacuumWrittenTables(store.store.db, (message) => warnings.push(message), 500)).toBe(1000);
      expect(warnings).toEqual([
        expect.stringMatching(
          /^VACUUM left 1,000 dead rows in .*subscriber_update_order \(1 sessions held an older snapshot/,
        ),
      ]);
    } finally {
      await holder.end();
    }
    expect(await vacuumWrittenTables(store.store.db, () => {}, 30_000)).toBe(0);
  }, 60_000);
});
