/**
 * Migrations 008 and 012: a notification's large values, its `details` (rows written before 012) and its kept answer
 * (D59), are compressed with lz4 where PostgreSQL has it (on every partition, the ones there were and one made later,
 * and on Citus every shard), and PGlite, built without lz4, keeps pglz and starts. The rows read back the same either
 * way.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { defaultDemoOptions } from "../../server/demo/generate.js";
import { loadDemo } from "../../server/demo/load.js";
import type { Store } from "../../server/store/store.js";
import { drivers, emptyStores, onCitus } from "../support/databases.js";

const columns = ["details", "answer"] as const;

/**
 * The compression of `details` and `answer` per table of notifications (the parent and each partition), by
 * `<table>.<column>`: "l" lz4, "" the default.
 */
async function compressionByTable(store: Store): Promise<Record<string, string>> {
  const { rows } = await sql<{ table: string; compression: string }>`
    SELECT c.relname || '.' || a.attname AS table, a.attcompression AS compression
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE a.attname IN ('details', 'answer') AND (c.oid = 'notifications'::regclass
      OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'notifications'::regclass))`.execute(store.db);
  return Object.fromEntries(rows.map((row) => [row.table, row.compression]));
}

/** How the kept answers are compressed, with how many of each ("pglz", "lz4", null: not compressed). */
async function storedCompressions(store: Store): Promise<Record<string, number>> {
  const { rows } = await sql<{ method: string | null; n: number }>`
    SELECT pg_column_compression(answer) AS method, count(*)::int AS n FROM notifications GROUP BY 1`.execute(store.db);
  return Object.fromEntries(rows.map((row) => [String(row.method), row.n]));
}

describe.each(drivers)("the compression of notifications' details and kept answers (%s)", (driver) => {
  const stores = emptyStores(driver);
  afterAll(() => stores.closeAll());

  it(
    driver === "postgres" ? "is lz4 on every partition, old and new" : "stays pglz, PGlite having no lz4",
    async () => {
      const store = await stores.fresh();
      await store.partitions.ensure(new Date("2031-01-15T00:00:00Z"), new Date("2031-02-15T00:00:00Z"));
      const tables = await compressionByTable(store);
      expect(Object.keys(tables)).toEqual(
        expect.arrayContaining(
          columns.flatMap((column) => [`notifications.${column}`, `notifications_2031_01.${column}`]),
        ),
      );
      const expected = driver === "postgres" ? "l" : "";
      for (const [table, compression] of Object.entries(tables)) expect(compression, table).toBe(expected);
    },
  );

  it("stores the demo data's answers that way and reads them back whole", async () => {
    const store = await stores.fresh();
    await loadDemo(store, { ...defaultDemoOptions, subscribers: 50, notifications: 300 });
    const methods = await storedCompressions(store);
    expect(methods[driver === "postgres" ? "lz4" : "pglz"], JSON.stringify(methods)).toBeGreaterThan(0);
    expect(methods[driver === "postgres" ? "pglz" : "lz4"], JSON.stringify(methods)).toBeUndefined();
    const { rows } = await sql<{ jobs: number }>`
      SELECT count(*)::int AS jobs FROM notifications WHERE jsonb_typeof((answer || '}')::jsonb -> 'jobs') = 'array'`.execute(
      store.db,
    );
    expect(rows[0]?.jobs).toBe(300);
  });

  it.runIf(onCitus)("is lz4 on every shard of every partition on Citus", async () => {
    const store = await stores.fresh();
    const tables = Object.keys(await compressionByTable(store));
    expect(tables.length).toBeGreaterThan(2);
    for (const [table, column] of tables.map((name) => name.split("."))) {
      const { rows } = await sql<{ result: string }>`
        SELECT result FROM run_command_on_shards(${table}, ${`SELECT attcompression FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = '${column}'`})`.execute(
        store.db,
      );
      expect(rows.length, `${table}.${column}`).toBeGreaterThan(0);
      expect(new Set(rows.map((row) => row.result)), `the shards of ${table}, ${column}`).toEqual(new Set(["l"]));
    }
  });
});
