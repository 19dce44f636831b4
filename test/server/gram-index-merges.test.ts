/**
 * The gram indexes' pending entries merged off the request path (server/store/gram-index-merges.ts): a PATCH leaves
 * entries that a merge takes in; the loop takes them in without being asked and stops when told; a failure is
 * reported once; and `npm start` on PostgreSQL runs the loop by default.
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess } from "../../scripts/processes.js";
import { mergeGramIndexes, mergeGramIndexesEvery } from "../../server/store/gram-index-merges.js";
import type { Database } from "../../server/store/schema.js";
import { createPostgresDatabase, drivers } from "../support/databases.js";
import { startTestServer, type TestServer } from "../support/server.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(drivers)("merging the gram indexes' pending entries (%s)", (driver) => {
  let server: TestServer;
  let subscriberIds: string[] = [];
  // Names, which the gram indexes take: a PATCH of `data` alone is a HOT update and adds no entry (migration 010).
  const patchSome = async (round: number) => {
    for (const [i, subscriberId] of subscriberIds.entries()) {
      const patched = await server.store.subscribers.patch(server.production.environmentId, subscriberId, {
        lastName: `Round ${round} ${i}`,
      });
      expect(patched?.lastName).toBe(`Round ${round} ${i}`);
    }
  };

  beforeAll(async () => {
    server = await startTestServer({ driver });
    subscriberIds = (
      await server.store.db
        .selectFrom("subscribers")
        .select("subscriber_id")
        .where("environment_id", "=", server.production.environmentId)
        .where("deleted", "=", false)
        .limit(20)
        .execute()
    ).map((row) => row.subscriber_id);
    // Autovacuum's ANALYZE of the freshly loaded table also takes in a GIN index's pending entries, at a moment of
    // its own: with it on, the check that an interval of 0 leaves them pending failed now and then (1 run in 3).
    await sql`ALTER TABLE subscribers SET (autovacuum_enabled = false)`.execute(server.store.db);
    await mergeGramIndexes(server.store.db);
  }, 120_000);
  afterAll(() => server?.close());

  it("takes in what PATCHes left pending, once", async () => {
    await patchSome(1);
    expect(await mergeGramIndexes(server.store.db)).toBeGreaterThan(0);
    expect(await mergeGramIndexes(server.store.db)).toBe(0);
  });

  it("merges every interval until stopped", async () => {
    const errors: unknown[] = [];
    const loop = mergeGramIndexesEvery(server.store.db, 20, (error) => errors.push(error));
    try {
      await patchSome(2);
      await pause(300);
      expect(await mergeGramIndexes(server.store.db)).toBe(0);
    } finally {
      // A merge the loop had under way would otherwise merge the entries of the patches below.
      await loop.stop();
    }
    await patchSome(3);
    await pause(300);
    expect(await mergeGramIndexes(server.store.db)).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it("never merges with an interval of 0 (GRAM_MERGE_INTERVAL_MS=0)", async () => {
    const loop = mergeGramIndexesEvery(server.store.db, 0, () => {});
    try {
      await patchSome(4);
      await pause(300);
      expect(await mergeGramIndexes(server.store.db)).toBeGreaterThan(0);
    } finally {
      loop.stop();
    }
  });
});

it("reports a failure once and stops merging", async () => {
  // Nothing listens on port 1: every merge would fail.
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ host: "127.0.0.1", port: 1, connectionTimeoutMillis: 200 }) }),
  });
  const errors: unknown[] = [];
  const loop = mergeGramIndexesEvery(db, 10, (error) => errors.push(error));
  try {
    await expect.poll(() => errors.length, { timeout: 3000 }).toBe(1);
    await pause(200);
    expect(errors).toHaveLength(1);
  } finally {
    loop.stop();
    await db.destroy();
  }
});

describe.runIf(drivers.includes("postgres"))("npm start on PostgreSQL", () => {
  it("merges the gram indexes' pending entries by default", async () => {
    const database = await createPostgresDatabase();
    const server = await startServerProcess({
      DATABASE_URL: database.url,
      DEMO_SUBSCRIBERS: "30",
      DEMO_NOTIFICATIONS: "30",
    });
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url }) }),
    });
    try {
      const headers = { authorization: `ApiKey ${server.keys.Production}`, "content-type": "application/json" };
      const page = (await (await fetch(`${server.baseUrl}/v2/subscribers?limit=10`, { headers })).json()) as {
        data: { subscriberId: string }[];
      };
      for (const [i, { subscriberId }] of page.data.entries()) {
        const response = await fetch(`${server.baseUrl}/v2/subscribers/${subscriberId}`, {
          method: "PATCH",
          headers,
          body: JSON.stringify({ firstName: `Merged ${i}` }),
        });
        expect(response.status).toBe(200);
      }
      await pause(1000);
      expect(await mergeGramIndexes(db)).toBe(0);
    } finally {
      await db.destroy();
      await server.stop();
      await database.drop();
    }
  }, 60_000);
});
