/**
 * The kept counts' UPDATE trigger on subscribers is a row trigger with a WHEN on the searched columns (migration 014,
 * D81): an UPDATE of what no count reads (`data`, `locale`: the benchmark's PATCH) fires nothing, where the statement
 * trigger of migration 006 ran its function on every UPDATE to find nothing to count. Seen in EXPLAIN ANALYZE, which
 * lists each trigger that fired. That the counts stay right through PATCHes is held by search-gram-counts.test.ts and
 * email-domain-counts.test.ts; here, the trigger's kind. Its function is migration 014's on every database, Citus's
 * triggers (citus/distribute.sql) included, so the counts' suites on Citus fail if it does not reach the workers.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/store/schema.js";
import { drivers, onCitus } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

class RolledBack extends Error {}

/** The trigger lines of EXPLAIN ANALYZE of `statement`, run in a transaction that is rolled back. */
async function triggersFiredBy(db: Kysely<Database>, statement: ReturnType<typeof sql>): Promise<string[]> {
  let lines: string[] = [];
  await db
    .transaction()
    .execute(async (trx) => {
      const { rows } = await sql<{ "QUERY PLAN": string }>`EXPLAIN (ANALYZE, COSTS OFF) ${statement}`.execute(trx);
      lines = rows.map((row) => row["QUERY PLAN"]).filter((line) => line.startsWith("Trigger "));
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return lines;
}

describe.each(drivers)("the kept counts' UPDATE trigger on subscribers (%s)", (driver) => {
  let server: TestServer;
  let environmentId: string;
  let subscriberId: string;

  beforeAll(async () => {
    server = await startTestServer({ driver, demo: { subscribers: 20, notifications: 5 } });
    environmentId = server.production.environmentId;
    const row = await server.store.db
      .selectFrom("subscribers")
      .select("subscriber_id")
      .where("environment_id", "=", environmentId)
      .where("deleted", "=", false)
      .where("first_name", "is not", null)
      .orderBy("id")
      .limit(1)
      .executeTakeFirstOrThrow();
    subscriberId = row.subscriber_id;
  }, 120_000);
  afterAll(() => server?.close());

  it("is a row trigger that fires only when a searched column or `deleted` changes", async () => {
    const { rows } = await sql<{ definition: string }>`
      SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger
      WHERE tgrelid = 'subscribers'::regclass AND tgname = 'subscribers_kept_counts_update'`.execute(server.store.db);
    expect(rows).toHaveLength(1);
    const definition = rows[0]?.definition ?? "";
    expect(definition).toContain("FOR EACH ROW");
    expect(definition).not.toContain("REFERENCING");
    expect(definition).toMatch(/WHEN \(.*email_search.*phone_search.*name_search.*deleted.*IS DISTINCT FROM/s);
    expect(definition).toContain("count_subscriber_row()");
  });

  // On Citus the trigger fires on a worker's shard, which the coordinator's EXPLAIN does not list.
  it.skipIf(onCitus)("fires nothing for an UPDATE of `data` and `locale`, and once for a changed name", async () => {
    const where = sql`environment_id = ${environmentId} AND subscriber_id = ${subscriberId} AND deleted = false`;
    const untouched = await triggersFiredBy(
      server.store.db,
      sql`UPDATE subscribers SET data = '{"plan": "pro"}'::jsonb, locale = 'fr_FR', version = version + 1 WHERE ${where}`,
    );
    expect(untouched).toEqual([]);
    const renamed = await triggersFiredBy(
      server.store.db,
      sql`UPDATE subscribers SET first_name = first_name || 'zq', version = version + 1 WHERE ${where}`,
    );
    expect(renamed).toEqual([expect.stringMatching(/^Trigger subscribers_kept_counts_update: .*calls=1$/)]);
  });
});
