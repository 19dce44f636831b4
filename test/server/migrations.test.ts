/**
 * The folded schema (server/store/migrations/001_schema.sql) against the history it replaced (before-0.3/): a fresh
 * database and one made by 0.2.0 (which ran 001-003) and then migrated by this version end with the same tables,
 * columns, indexes, constraints, functions and triggers, and the 0.2.0 database keeps its rows.
 */
import { readdirSync, readFileSync } from "node:fs";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "../../server/store/connect.js";
import { migrate } from "../../server/store/migrate.js";
import type { Database } from "../../server/store/schema.js";
import { createPostgresDatabase, drivers, onCitus } from "../support/databases.js";

const history = new URL("../../server/store/migrations/before-0.3/", import.meta.url);
/** The migrations after the folded schema, which both databases run. */
const later = readdirSync(new URL("../../server/store/migrations/", import.meta.url))
  .filter((name) => name.endsWith(".sql") && name !== "001_schema.sql")
  .sort();

/**
 * On a Citus coordinator the reference tables' copies on the coordinator (organizations_102008, …) are in the catalog
 * too, named after the shard id Citus handed out. The ids are Citus's, not the schema's: usually 102008-102010 in both
 * databases, but CI once saw one database's copies take 102008, 102010 and 102013. So the id is not compared, only
 * that the same copies, keys and checks exist.
 */
const shardId = /_1\d{5,}\b/g;

/**
 * The database's schema as text rows, each kind sorted; extension members (pg_trgm of old databases) left out. The
 * names PostgreSQL gave the partitioned table's constraints in the old history end in "1" (the unpartitioned table
 * held the plain names when they were made); nothing refers to them by name, so that suffix is not compared.
 */
async function catalog(db: Kysely<Database>): Promise<Record<string, string[]>> {
  const queries = {
    columns: sql<{ row: string }>`
      SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||
        coalesce(column_default, '-') || ' ' || coalesce(generation_expression, '-') AS row
      FROM information_schema.columns WHERE table_schema = 'public'`,
    indexes: sql<{ row: string }>`SELECT indexdef AS row FROM pg_indexes WHERE schemaname = 'public'`,
    constraints: sql<{ row: string }>`
      SELECT conrelid::regclass::text || ' ' || regexp_replace(conname, '(fkey|not_null)1$', '\\1') || ' ' ||
        pg_get_constraintdef(oid) AS row
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace`,
    functions: sql<{ row: string }>`
      SELECT pg_get_functiondef(p.oid) AS row FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
    triggers: sql<{ row: string }>`SELECT pg_get_triggerdef(oid) AS row FROM pg_trigger WHERE NOT tgisinternal`,
    tables: sql<{ row: string }>`
      SELECT c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text AS row FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')`,
  };
  const result: Record<string, string[]> = {};
  for (const [kind, query] of Object.entries(queries)) {
    result[kind] = (await query.execute(db)).rows.map((r) => r.row.replace(shardId, "_<shard>")).sort();
  }
  return result;
}

async function open(driver: "pglite" | "postgres") {
  const database = driver === "postgres" ? await createPostgresDatabase() : undefined;
  const { db } = await connect({ databaseUrl: database?.url });
  return {
    db,
    async close() {
      await db.destroy();
      await database?.drop();
    },
  };
}

describe.each(drivers)("the folded schema (%s)", (driver) => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.close()));
  });

  it("is the schema that the history before 0.3.0 makes, and a 0.2.0 database moves to it with its rows", async () => {
    const fresh = await open(driver);
    const old = await open(driver);
    opened.push(fresh, old);
    // On a Citus coordinator, the tables are distributed after the migrations (citus/distribute.sql).
    const distributed = driver === "postgres" && onCitus ? ["distribute.sql"] : [];
    expect(await migrate(fresh.db)).toEqual(["001_schema.sql", ...later, ...distributed]);

    // What 0.2.0 left: 001-003 run and recorded, and a row in each main table.
    await sql`CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(
      old.db,
    );
    for (const name of ["001_initial.sql", "002_counts_and_filter_terms.sql", "003_notification_partitions.sql"]) {
      await sql.raw(readFileSync(new URL(name, history), "utf8")).execute(old.db);
      await old.db.insertInto("schema_migrations").values({ name }).execute();
    }
    const id = (n: number) => String(n).padStart(24, "0");
    await sql`INSERT INTO organizations (id, name) VALUES (${id(1)}, 'o')`.execute(old.db);
    await sql`INSERT INTO environments (id, organization_id, name) VALUES (${id(2)}, ${id(1)}, 'e')`.execute(old.db);
    await sql`INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id, email, first_name, created_at,
      updated_at) VALUES (${id(3)}, ${id(2)}, ${id(1)}, 's', 'Ada@Example.com', 'Ada', now(), now())`.execute(old.db);
    await sql`INSERT INTO notifications (id, environment_id, organization_id, subscriber_id, transaction_id, channels,
      created_at, updated_at, details) VALUES (${id(4)}, ${id(2)}, ${id(1)}, ${id(3)}, 't', '{email}', now(), now(), '{}')`.execute(
      old.db,
    );

    expect(await migrate(old.db)).toEqual([
      "004_substring_search.sql",
      "005_rate_limit_buckets.sql",
      ...later,
      ...distributed,
    ]);
    expect(await migrate(old.db)).toEqual([]);
    const recorded = await old.db.selectFrom("schema_migrations").select("name").orderBy("name").execute();
    expect(recorded.map((row) => row.name)).toContain("001_schema.sql");

    const [want, got] = [await catalog(fresh.db), await catalog(old.db)];
    for (const kind of Object.keys(want)) expect(got[kind], kind).toEqual(want[kind]);
    // The gram indexes keep a small pending list (002), so that searches never read a long one.
    expect(want.indexes?.filter((index) => /_grams .*gin_pending_list_limit='64'/.test(index))).toHaveLength(3);

    const subscriber = await sql<{ email_search: string; name_search: string }>`
      SELECT email_search, name_search FROM subscribers`.execute(old.db);
    expect(subscriber.rows).toEqual([{ email_search: "ada@example.com", name_search: "ada " }]);
    const counts = await sql<{ live: string }>`SELECT live::text FROM subscriber_counts`.execute(old.db);
    expect(counts.rows).toEqual([{ live: "1" }]);
    // Its order row (010), holding its updated_at.
    const ordered = await sql<{ same: boolean }>`SELECT o.updated_at = s.updated_at AS same
      FROM subscriber_update_order o JOIN subscribers s USING (environment_id, id)`.execute(old.db);
    expect(ordered.rows).toEqual([{ same: true }]);
    const notification = await sql<{ filter_terms: string[] }>`SELECT filter_terms FROM notifications`.execute(old.db);
    expect(notification.rows[0]?.filter_terms).toEqual(["c:email", "cs:email:none"]);
  });
});
