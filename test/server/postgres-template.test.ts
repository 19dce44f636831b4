/**
 * The run's PostgreSQL template (TEST_POSTGRES_TEMPLATE, test/global-setup.ts): a test database copied from it
 * (`createPostgresDatabase({ migrated: true })`) is the database the migrations make on a new one, empty, its
 * migrations applied before the copy, and its own; on Citus with the same distributed tables and shards.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/store.js";
import { createPostgresDatabase, onCitus, postgresTemplate } from "../support/databases.js";
import { schemaOf } from "../support/schema.js";

type Opened = Awaited<ReturnType<typeof openStore>>;

describe.skipIf(!process.env.TEST_DATABASE_URL)("a test database copied from the run's PostgreSQL template", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  async function open(migrated: boolean): Promise<Opened> {
    const database = await createPostgresDatabase({ migrated });
    cleanups.push(database.drop);
    const opened = await openStore({ databaseUrl: database.url, poolSize: 1, totalCountCap: 10 });
    cleanups.push(() => opened.close());
    return opened;
  }
  /** On Citus, the distributed tables and how many shards each has. */
  async function distributionOf(opened: Opened) {
    if (!onCitus) return [];
    const { rows } = await sql<{ table: string; shards: number }>`
      SELECT p.logicalrelid::text AS table, count(s.shardid)::int AS shards
        FROM pg_dist_partition p LEFT JOIN pg_dist_shard s ON s.logicalrelid = p.logicalrelid
       GROUP BY 1 ORDER BY 1`.execute(opened.store.db);
    return rows;
  }

  it("is the migrated database, empty and its own", async () => {
    expect(postgresTemplate, "test/global-setup.ts names a template whenever TEST_DATABASE_URL is set").toBeTruthy();
    const fresh = await open(false);
    const copiedAt = new Date();
    const copy = await open(true);
    const expected = await schemaOf(fresh.store.db);
    expect(expected.migrations.length).toBeGreaterThan(10);
    expect(expected.objects.length).toBeGreaterThan(50);
    expect(await schemaOf(copy.store.db)).toEqual(expected);
    expect(await distributionOf(copy)).toEqual(await distributionOf(fresh));
    if (onCitus) expect((await distributionOf(copy)).length).toBeGreaterThan(3);
    // Its migrations ran when the template was made, not when the copy was opened.
    const times = await sql<{ name: string; at: Date }>`SELECT name, applied_at AS at FROM schema_migrations`.execute(
      copy.store.db,
    );
    const late = times.rows.filter((row) => row.at.getTime() >= copiedAt.getTime()).map((row) => row.name);
    expect(late, "migrations that ran when the copy was opened, not in the template").toEqual([]);
    const subscribers = await sql<{ n: number }>`SELECT count(*)::int AS n FROM subscribers`.execute(copy.store.db);
    expect(subscribers.rows[0]?.n).toBe(0);
    // A write to one copy is not in the next.
    await copy.store.access.ensureEnvironment("Template");
    const next = await open(true);
    const environments = await sql<{ n: number }>`SELECT count(*)::int AS n FROM environments`.execute(next.store.db);
    expect(environments.rows[0]?.n).toBe(0);
  }, 120_000);
});
