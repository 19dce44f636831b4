/**
 * `npm run bench` refuses a database whose schema is not the migrations' (bench/schema-check.ts): a trigger, index or
 * function changed by hand would otherwise be measured as the code's. Here, on a migrated PostgreSQL database, each
 * kind of change is named, and what the data decides (a partition for another month) is not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertMigratedSchema, schemaDifferences } from "../../bench/schema-check.js";
import { createPostgresDatabase, drivers, onAdmin, onCitus } from "../support/databases.js";

// The benchmark runs on single-node PostgreSQL; a Citus coordinator has objects of its own (citus/distribute.sql).
describe.skipIf(!drivers.includes("postgres") || onCitus)("the benchmark's schema check (postgres)", () => {
  let database: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    database = await createPostgresDatabase({ migrated: true });
  }, 120_000);
  afterAll(() => database?.drop());

  it("finds nothing on a database the migrations made, with a partition of its own month added", async () => {
    await onAdmin(
      database.url,
      "CREATE TABLE notifications_2031_01 PARTITION OF notifications FOR VALUES FROM ('2031-01-01') TO ('2031-02-01')",
    );
    expect(await schemaDifferences(database.url)).toEqual([]);
  });

  it("names a trigger, an index, a function and a column changed by hand", async () => {
    // Migration 006's statement trigger back in place of migration 014's row trigger: what D81's first run measured.
    await onAdmin(
      database.url,
      `DROP TRIGGER subscribers_kept_counts_update ON subscribers;
       CREATE TRIGGER subscribers_kept_counts_update AFTER UPDATE ON subscribers
         REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_subscriber_statement();
       DROP INDEX subscribers_search_columns;
       CREATE INDEX bench_by_hand ON subscribers (locale);
       CREATE OR REPLACE FUNCTION count_subscriber_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
       ALTER TABLE subscribers ALTER COLUMN locale SET DEFAULT 'en_US';`,
    );
    const differences = await schemaDifferences(database.url);
    expect(differences).toEqual([
      expect.stringMatching(/^changed: column subscribers\.locale\n {4}is: .*DEFAULT 'en_US'/),
      expect.stringMatching(/^changed: function count_subscriber_row\(\)\n/),
      expect.stringMatching(
        /^changed: trigger subscribers\.subscribers_kept_counts_update\n {4}is: .*FOR EACH STATEMENT/,
      ),
      "missing: index subscribers_search_columns",
      "not made by the migrations: index bench_by_hand",
    ]);
    await expect(assertMigratedSchema(database.url, () => {})).rejects.toThrow(
      /does not have the schema that the migrations make[\s\S]*missing: index subscribers_search_columns[\s\S]*bench:data -- --reset/,
    );
  }, 60_000);

  it("warns, and lets the run go on, when the role may not create the scratch database", async () => {
    const role = `bench_reader_${process.pid}`;
    await onAdmin(database.url, `DROP ROLE IF EXISTS ${role}; CREATE ROLE ${role} LOGIN NOCREATEDB`);
    try {
      const url = new URL(database.url);
      url.username = role;
      const warnings: string[] = [];
      await assertMigratedSchema(url.toString(), (message) => warnings.push(message));
      expect(warnings).toEqual([
        expect.stringMatching(/^The schema was not checked: .*permission denied to create database/),
      ]);
    } finally {
      await onAdmin(database.url, `DROP ROLE IF EXISTS ${role}`);
    }
  });
});
