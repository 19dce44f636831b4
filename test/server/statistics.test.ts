/**
 * A load leaves its tables analyzed (server/store/statistics.ts, D56). PGlite runs no autovacuum: without this a
 * database filled by the demo load had no statistics ever, and the planner took each table for a few rows (3
 * subscribers estimated for an environment of 800, a nested loop of 320,000 comparisons for one `updatedAt` page).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { defaultDemoOptions } from "../../server/demo/generate.js";
import { loadDemo } from "../../server/demo/load.js";
import { analyzeIfNeverAnalyzed } from "../../server/store/statistics.js";
import { openStore, type Store } from "../../server/store/store.js";
import { drivers, emptyStores, onCitus } from "../support/databases.js";

const demo = { ...defaultDemoOptions, subscribers: 300, notifications: 600 };

/** The planner's estimate of an environment's live subscribers, and the count. */
async function estimateAndCount(store: Store, environmentId: string) {
  const explained = await sql<{ "QUERY PLAN": { Plan: { "Plan Rows": number } }[] }>`
    EXPLAIN (FORMAT JSON) SELECT id FROM subscribers WHERE environment_id = ${sql.lit(environmentId)} AND NOT deleted`.execute(
    store.db,
  );
  const counted = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM subscribers WHERE environment_id = ${environmentId} AND NOT deleted`.execute(
    store.db,
  );
  return { estimated: explained.rows[0]?.["QUERY PLAN"][0]?.Plan["Plan Rows"] ?? 0, counted: counted.rows[0]?.n ?? 0 };
}

async function analyzedTables(store: Store): Promise<string[]> {
  const { rows } = await sql<{ tablename: string }>`
    SELECT DISTINCT tablename FROM pg_stats WHERE schemaname = current_schema() ORDER BY tablename`.execute(store.db);
  return rows.map((row) => row.tablename);
}

describe.each(drivers)("table statistics after a load (%s)", (driver) => {
  const stores = emptyStores(driver);
  afterAll(() => stores.closeAll());

  // On Citus the coordinator's tables hold no rows: the shards' statistics are the workers'.
  it.skipIf(onCitus)(
    "are there for every table the load wrote, and the planner's estimates follow the rows",
    async () => {
      const store = await stores.fresh();
      const [production] = await loadDemo(store, demo);
      expect(await analyzedTables(store)).toEqual(
        expect.arrayContaining(["subscribers", "subscriber_update_order", "notifications", "workflows"]),
      );
      const { estimated, counted } = await estimateAndCount(store, production?.environmentId as string);
      expect(counted).toBeGreaterThan(200);
      expect(estimated / counted).toBeGreaterThan(0.5);
      expect(estimated / counted).toBeLessThan(2);
    },
  );

  // PGlite only: PostgreSQL's autovacuum may analyze them meanwhile.
  it.runIf(driver === "pglite")(
    "are left to the caller when it asks (bench:data analyzes after its indexes)",
    async () => {
      const store = await stores.fresh();
      await loadDemo(store, demo, { analyze: false });
      expect(await analyzedTables(store)).not.toContain("subscribers");
    },
  );
});

describe.skipIf(onCitus)("table statistics of a PGlite data directory loaded without them", () => {
  it("are made when it is opened, once", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "statistics-"));
    try {
      const first = await openStore({ dataDir, totalCountCap: 50_000 });
      await loadDemo(first.store, demo, { analyze: false });
      await first.close();
      const second = await openStore({ dataDir, totalCountCap: 50_000 });
      try {
        expect(await analyzedTables(second.store)).toContain("subscribers");
        expect(await analyzeIfNeverAnalyzed(second.store.db)).toBe(false);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
