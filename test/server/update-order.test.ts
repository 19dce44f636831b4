/**
 * The subscribers' `updatedAt` order kept beside their rows (migration 010, D54): after every way the store writes a
 * subscriber (a bulk load with the triggers off, a plain INSERT, a PATCH, a DELETE) each subscriber has exactly one
 * order row, holding its `updated_at`; and a PATCH of what no index reads is a HOT update of the subscriber, which
 * touches none of its indexes.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { defaultDemoOptions } from "../../server/demo/generate.js";
import { loadDemo } from "../../server/demo/load.js";
import type { Store } from "../../server/store/store.js";
import { drivers, emptyStores, onCitus } from "../support/databases.js";

const demo = { ...defaultDemoOptions, subscribers: 120, notifications: 40 };

/** Subscribers whose order row is missing or holds another `updated_at`, and order rows without a subscriber. */
async function mismatches(store: Store): Promise<unknown[]> {
  const { rows } = await sql`
    SELECT s.id AS subscriber, o.id AS order_row, s.updated_at, o.updated_at AS ordered_at
    FROM subscribers s FULL JOIN subscriber_update_order o ON o.environment_id = s.environment_id AND o.id = s.id
    WHERE s.id IS NULL OR o.id IS NULL OR o.updated_at <> s.updated_at`.execute(store.db);
  return rows;
}

async function liveSubscribers(store: Store) {
  return store.db
    .selectFrom("subscribers")
    .select(["id", "environment_id", "subscriber_id"])
    .where("deleted", "=", false)
    .orderBy("id")
    .execute();
}

describe.each(drivers)("the subscribers' update order (%s)", (driver) => {
  const stores = emptyStores(driver);
  afterAll(() => stores.closeAll());

  it("has one order row per subscriber, holding its updated_at, after every kind of write", async () => {
    const store = await stores.fresh();
    // A bulk load: its triggers are off, and it writes the order rows at its end.
    await loadDemo(store, demo);
    const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM subscriber_update_order`.execute(store.db);
    expect(count.rows[0]?.n).toBe(demo.subscribers);
    expect(await mismatches(store)).toEqual([]);

    const [first, second, third] = await liveSubscribers(store);
    if (!first || !second || !third) throw new Error("the demo has fewer than three live subscribers");
    // PATCHes: one of what no index reads, one of a searched column, one that changes nothing.
    await store.subscribers.patch(first.environment_id, first.subscriber_id, { data: { plan: "team" } });
    await store.subscribers.patch(second.environment_id, second.subscriber_id, { firstName: "Ada", locale: "fr" });
    await store.subscribers.patch(second.environment_id, second.subscriber_id, { firstName: "Ada" });
    expect(await mismatches(store)).toEqual([]);
    await store.subscribers.patch(third.environment_id, third.subscriber_id, { timezone: "Asia/Tokyo" });
    expect(await mismatches(store)).toEqual([]);
    // A plain INSERT, then a DELETE.
    await sql`INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id, created_at, updated_at)
      SELECT 'ffffffffffffffffffffff01', environment_id, organization_id, 'order-row-test', now(), now()
      FROM subscribers WHERE id = ${first.id}`.execute(store.db);
    expect(await mismatches(store)).toEqual([]);
    await sql`DELETE FROM subscribers WHERE id = 'ffffffffffffffffffffff01'`.execute(store.db);
    expect(await mismatches(store)).toEqual([]);
    const after = await sql<{ n: number }>`SELECT count(*)::int AS n FROM subscriber_update_order`.execute(store.db);
    expect(after.rows[0]?.n).toBe(demo.subscribers);
  }, 120_000);

  // On Citus the subscriber's shard is updated on a worker, whose statistics the coordinator's session does not see.
  it.skipIf(onCitus)(
    "makes a PATCH of data, locale, avatar or timezone a HOT update, and one of a name not",
    async () => {
      const store = await stores.fresh();
      await loadDemo(store, demo);
      const [subscriber] = await liveSubscribers(store);
      if (!subscriber) throw new Error("the demo has no live subscriber");
      /**
       * The subscribers' updates and HOT updates that one PATCH made: the session's counts before and after it, in one
       * transaction (PostgreSQL 15 keeps a session's counts pending across its transactions until it reports them).
       */
      const updates = (changes: Parameters<Store["subscribers"]["patch"]>[2]) =>
        store.transaction(async (tx) => {
          const read = async () =>
            (
              await sql<{ updated: number; hot: number }>`
              SELECT pg_stat_get_xact_tuples_updated('subscribers'::regclass)::int AS updated,
                     pg_stat_get_xact_tuples_hot_updated('subscribers'::regclass)::int AS hot`.execute(tx.db)
            ).rows[0] as { updated: number; hot: number };
          const before = await read();
          await tx.subscribers.patch(subscriber.environment_id, subscriber.subscriber_id, changes);
          const after = await read();
          return { updated: after.updated - before.updated, hot: after.hot - before.hot };
        });
      expect(await updates({ data: { plan: "team" } })).toEqual({ updated: 1, hot: 1 });
      expect(await updates({ locale: "de", avatar: "https://example.com/a.png", timezone: "Europe/Berlin" })).toEqual({
        updated: 1,
        hot: 1,
      });
      // A name is searched: its gram indexes must take the new name, so the row gets new index entries.
      expect(await updates({ lastName: "Lovelace" })).toEqual({ updated: 1, hot: 0 });
    },
    120_000,
  );
});
