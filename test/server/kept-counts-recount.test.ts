/**
 * A bulk load (the demo and bench loaders) turns the count triggers off and recounts once at the end
 * (server/store/kept-counts.ts): the kept counts it leaves are exactly the ones the triggers keep row by row, and the
 * triggers work again after it.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { defaultDemoOptions, generateDemoData } from "../../server/demo/generate.js";
import { loadDemo } from "../../server/demo/load.js";
import { insertNotifications, insertSubscribers, insertWorkflows } from "../../server/store/bulk-insert.js";
import { keptCountRecounts } from "../../server/store/kept-counts.js";
import type { Store } from "../../server/store/store.js";
import { drivers, emptyStores, onCitus } from "../support/databases.js";

const demo = { ...defaultDemoOptions, subscribers: 300, notifications: 500 };
/** Each count table's counts, by key: the domain and gram counts summed over their slots (one per connection, migration 007). */
const countTables = [
  ["subscriber_counts", "environment_id", "live"],
  ["subscriber_email_domains", "environment_id, domain", "sum(live)::bigint"],
  ["subscriber_search_gram_counts", "environment_id, searched, gram", "sum(live)::bigint"],
  ["notification_term_counts", "environment_id, term", "notifications"],
] as const;

async function counts(store: Store): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const [table, key, count] of countTables) {
    all[table] = (
      await sql.raw(`SELECT ${key}, ${count} AS n FROM ${table} GROUP BY ${key} ORDER BY ${key}`).execute(store.db)
    ).rows;
  }
  return all;
}

describe.each(drivers)("kept counts after a bulk load (%s)", (driver) => {
  const stores = emptyStores(driver);
  const fresh = () => stores.fresh();
  afterAll(() => stores.closeAll());

  it("equal the counts the triggers keep, row by row, for the same rows; the triggers work afterwards", async () => {
    const bulk = await fresh();
    await loadDemo(bulk, demo);
    const byTriggers = await fresh();
    const environments = generateDemoData(demo);
    await byTriggers.transaction(async (tx) => {
      for (const environment of environments) {
        const { environmentId, organizationId } = environment;
        await tx.access.ensureEnvironment(environment.name, { environmentId, organizationId });
        await insertWorkflows(tx.db, environment.workflows);
      }
      await tx.partitions.ensure(new Date(demo.anchor.getTime() - 200 * 86_400_000), demo.anchor);
      // Batches of 50, as a long load writes them, each through the count triggers.
      for (const environment of environments) {
        for (let at = 0; at < environment.subscribers.length; at += 50) {
          await insertSubscribers(tx.db, environment.subscribers.slice(at, at + 50));
        }
      }
      for (const environment of environments) {
        for (let at = 0; at < environment.notifications.length; at += 50) {
          await insertNotifications(tx.db, environment.notifications.slice(at, at + 50));
        }
      }
    });
    const expected = await counts(byTriggers);
    expect((expected.subscriber_search_gram_counts as unknown[]).length).toBeGreaterThan(100);
    expect(await counts(bulk)).toEqual(expected);
    // The triggers are on again: a soft delete counts at once.
    const before = await counts(bulk);
    await sql`UPDATE subscribers SET deleted = true WHERE id = (SELECT id FROM subscribers WHERE NOT deleted LIMIT 1)`.execute(
      bulk.db,
    );
    expect(await counts(bulk)).not.toEqual(before);
  });

  // D64: on a new database the recount was planned without statistics (a million subscribers taken for 150,000 in
  // 200 environments) and sorted its 113 million grams on disk, three to four times slower than hashing them. The
  // load analyzes what it wrote before it recounts, inside its transaction: the rows are counted and the columns
  // grouped by have statistics, although the load itself was told not to analyze after it.
  it.runIf(!onCitus)(
    "plans the recount from statistics of the rows it wrote, which a new database has none of",
    async () => {
      const store = await fresh();
      await loadDemo(store, demo, { analyze: false });
      const { rows } = await sql<{ tuples: number; grouped: boolean }>`
      SELECT c.reltuples::integer AS tuples, EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = current_schema()
        AND s.tablename = 'subscribers' AND s.attname = 'environment_id') AS grouped
      FROM pg_class c WHERE c.oid = 'subscribers'::regclass`.execute(store.db);
      expect(rows[0]).toEqual({ tuples: demo.subscribers, grouped: true });
    },
  );

  // D38's recount counts a million subscribers' grams with parallel workers; a function PostgreSQL may not run in a
  // worker (migration 007's kept_count_slot(), PARALLEL RESTRICTED) kept it serial: no partial aggregate in the plan on
  // the bench data, and `npm run bench:data` slower. At a test's size no plan is parallel unless workers cost nothing,
  // so here they cost nothing.
  it.runIf(driver === "postgres" && !onCitus)(
    "counts the grams with parallel workers: nothing in the recount keeps them out",
    async () => {
      const store = await fresh();
      await loadDemo(store, demo);
      await sql`ANALYZE`.execute(store.db);
      await store.db.connection().execute(async (db) => {
        for (const setting of ["min_parallel_table_scan_size", "min_parallel_index_scan_size", "parallel_setup_cost"])
          await sql.raw(`SET ${setting} = 0`).execute(db);
        // The gram counts: tens of millions of grams for a million subscribers, counted by the workers (a partial
        // aggregate each) and summed by the leader. (Handing rows to the leader is left at its cost: were it free, the
        // leader would count every gram itself.)
        const grams = keptCountRecounts(7).find((recount) => recount.table === "subscriber_search_gram_counts");
        const { rows } = await sql<Record<string, unknown>>`EXPLAIN (FORMAT JSON) ${grams?.select}`.execute(db);
        expect(JSON.stringify(rows[0])).toContain('"Partial Mode":"Partial"');
      });
    },
  );
});
