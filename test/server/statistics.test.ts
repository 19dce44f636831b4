/**
 * A load leaves its tables analyzed (server/store/statistics.ts, D56). PGlite runs no autovacuum: without this a
 * database filled by the demo load had no statistics ever, and the planner took each table for a few rows (3
 * subscribers estimated for an environment of 800, a nested loop of 320,000 comparisons for one `updatedAt` page).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { defaultDemoOptions } from "../../server/demo/generate.js";
import { loadDemo } from "../../server/demo/load.js";
import { analyzeIfNeverAnalyzed } from "../../server/store/statistics.js";
import { openStore, type Store } from "../../server/store/store.js";
import { createPostgresDatabase, drivers, emptyStores, onCitus } from "../support/databases.js";

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
      // Only the columns the kept counts' recount groups by (D64); the rest of the tables as the load left them.
      const tables = await analyzedTables(store);
      expect(tables).not.toContain("subscriber_update_order");
      expect(tables).not.toContain("workflows");
      const { rows } = await sql<{ attname: string }>`SELECT attname FROM pg_stats
        WHERE schemaname = current_schema() AND tablename = 'subscribers' ORDER BY attname`.execute(store.db);
      expect(rows.map((row) => row.attname)).toEqual(["deleted", "environment_id", "id"]);
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
        expect(await analyzedTables(second.store)).toContain("subscriber_update_order");
        expect(await analyzeIfNeverAnalyzed(second.store.db)).toBe(false);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

// Plain PostgreSQL: a lock held from another connection makes the ANALYZE wait, as a slow one on a busy Citus cluster
// did in CI (a test server's demo load, its statement timeout 300 ms).
describe.runIf(drivers.includes("postgres") && !onCitus)("table statistics under STATEMENT_TIMEOUT_MS", () => {
  it("are made however long the ANALYZE takes: it is part of the load, which the timeout does not hold", async () => {
    const database = await createPostgresDatabase();
    const opened = await openStore({ databaseUrl: database.url, totalCountCap: 50_000, statementTimeoutMs: 300 });
    const locker = new pg.Client({ connectionString: database.url });
    try {
      await locker.connect();
      // ANALYZE takes this lock on each table; the load's own writes do not wait for it.
      await locker.query("BEGIN; LOCK TABLE api_keys IN SHARE UPDATE EXCLUSIVE MODE");
      const release = setTimeout(() => void locker.query("COMMIT"), 1000);
      try {
        await loadDemo(opened.store, demo);
      } finally {
        clearTimeout(release);
      }
      expect(await analyzedTables(opened.store)).toContain("subscribers");
    } finally {
      await locker.end();
      await opened.close();
      await database.drop();
    }
  }, 120_000);
});
